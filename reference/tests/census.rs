//! Over all 2,598,960 hands, how often the reference's `evaluate()` and each check is true,
//! against the counts every poker text gives (DOMAIN.md).
//!
//! The hand is reached through the reference's registration, not its module by name:
//! grading the reference as a student's crate (tests/check.rs) takes the files of `tests/`
//! that name the assignment's module for the student's own tests, and run once for each
//! implementation through the stand-ins, this census would take minutes.

use grader_api::plaisante_hand::{Contract, HandName};
use grader_api::{HandSource, PlaisanteHand};

/// How often each `evaluate()` result and each check is true.
#[derive(Default)]
struct Census {
    evaluated: [u64; 8],
    pair: u64,
    two_pair: u64,
    three: u64,
    four: u64,
    full_house: u64,
    flush: u64,
    straight: u64,
    flush_and_straight: u64,
}

fn census() -> Census {
    let submission = reference::submission();
    let build = submission
        .registered::<Contract>()
        .expect("the reference registers a hand");
    let mut c = Census::default();
    HandSource::Exhaustive {
        hand_size: 5,
        shuffled: false,
    }
    .for_each_hand(|cards| {
        let h: Box<dyn PlaisanteHand> = build(cards);
        c.evaluated[h.evaluate() as usize] += 1;
        c.pair += u64::from(h.has_pair());
        c.two_pair += u64::from(h.has_two_pair());
        c.three += u64::from(h.has_three_of_a_kind());
        c.four += u64::from(h.has_four_of_a_kind());
        c.full_house += u64::from(h.has_full_house());
        c.flush += u64::from(h.has_flush());
        c.straight += u64::from(h.has_straight());
        c.flush_and_straight += u64::from(h.has_flush() && h.has_straight());
        true
    });
    c
}

#[test]
fn evaluate_and_every_check_match_the_exhaustive_counts() {
    let c = census();
    let expected = [
        (HandName::FourOfAKind, 624),
        (HandName::FullHouse, 3_744),
        (HandName::Flush, 5_148),
        (HandName::Straight, 9_180),
        (HandName::ThreeOfAKind, 54_912),
        (HandName::TwoPair, 123_552),
        (HandName::Pair, 1_098_240),
        (HandName::HighCard, 1_303_560),
    ];
    for (name, count) in expected {
        assert_eq!(c.evaluated[name as usize], count, "{name}");
    }
    assert_eq!(c.evaluated.iter().sum::<u64>(), 2_598_960);
    assert_eq!(c.pair, 1_225_536);
    assert_eq!(c.two_pair, 123_552);
    assert_eq!(c.three, 58_656);
    assert_eq!(c.four, 624);
    assert_eq!(c.full_house, 3_744);
    assert_eq!(c.flush, 5_148);
    assert_eq!(c.straight, 9_216);
    assert_eq!(c.flush_and_straight, 36);
}
