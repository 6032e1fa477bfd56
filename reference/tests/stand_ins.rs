//! Each assignment's stand-in answers as the implementation it links to: the reference
//! served on a thread of the test, its answers compared with the reference's own.

use std::os::unix::net::UnixStream;

use grader_api::stand_in::{Link, server, with_link};

/// Runs `body` with the stand-ins of `assignment` linked to the reference on a thread.
fn linked_to_the_reference<T>(assignment: &'static str, body: impl FnOnce() -> T) -> T {
    linked_to(reference::submission(), assignment, body)
}

/// The stand-ins whose implementation calls the test back (a blackjack player, Crazy
/// Eights strategies).
#[path = "stand_ins/called_back.rs"]
mod called_back;

fn cards(texts: &[&str]) -> Vec<grader_api::Card> {
    texts.iter().map(|card| card.parse().unwrap()).collect()
}

mod plaisante_hand {
    use super::*;
    use grader_api::Deck;
    use grader_api::plaisante_hand::{Multipliers, PlaisanteHand, stand_in};

    #[test]
    fn every_method_answers_as_the_reference_on_a_thousand_hands() {
        let hands: Vec<_> = (0..1000u64)
            .map(|seed| {
                let mut deck = Deck::shuffled(seed);
                (0..=seed % 6).map(|_| deck.deal()).collect::<Vec<_>>()
            })
            .collect();
        let multipliers = Multipliers::new([1, 3, 5, 7, 9, 11, 13, 15]);
        linked_to_the_reference("plaisante_hand", || {
            for cards in &hands {
                let ours = reference::plaisante_hand::Hand::new(cards.clone());
                let theirs = stand_in::Hand::new(cards.clone());
                assert_eq!(ours.cards(), theirs.cards());
                assert_eq!(ours.count_values(), theirs.count_values());
                assert_eq!(ours.evaluate(), theirs.evaluate(), "{cards:?}");
                assert_eq!(ours.has_pair(), theirs.has_pair());
                assert_eq!(ours.has_straight(), theirs.has_straight());
                assert_eq!(ours.lowest_value(), theirs.lowest_value());
                assert_eq!(ours.score(&multipliers), theirs.score(&multipliers));
            }
        });
    }

    #[test]
    fn a_call_the_implementation_refuses_panics_the_test_with_why() {
        linked_to_the_reference("plaisante_hand", || {
            let hand = stand_in::Hand::new(cards(&["AH", "KD"]));
            assert_eq!(hand.count_values()[14], 1);
            let panicked = std::panic::catch_unwind(|| {
                grader_api::stand_in::ask::<u32>(
                    9999,
                    2,
                    |_| Ok(()),
                    &mut grader_api::stand_in::NoCallbacks,
                )
            })
            .unwrap_err();
            let said = grader_api::stand_in::panic_text(panicked.as_ref());
            assert!(said.contains("no object 9999"), "{said}");
        });
    }
}

/// Runs `body` with the stand-ins of `assignment` linked to `submission` on a thread: the
/// reference's, or an implementation of the test's own, to show the stand-ins forward what
/// it overrides.
fn linked_to<T>(
    submission: grader_api::Submission,
    assignment: &'static str,
    body: impl FnOnce() -> T,
) -> T {
    let (test, oracle) = UnixStream::pair().unwrap();
    let serving = std::thread::spawn(move || {
        let mut answerer = server(&submission, assignment).expect("a stand-in");
        Link::new(oracle).serve(answerer.as_mut())
    });
    let result = with_link(Link::new(test), body);
    serving.join().unwrap().unwrap();
    result
}

/// A deck whose generator stands mid-stream, `left` cards from a fresh deck: what crosses
/// to the implementation must deal, there and back, as it would have here.
fn a_used_deck(seed: u64, left: usize) -> grader_api::Deck {
    let mut deck = grader_api::Deck::shuffled(seed);
    deck.renew();
    while deck.len() > left {
        deck.draw();
    }
    deck
}

/// The next `count` cards each deck deals, past their ends into fresh decks, are the same.
fn assert_same_deals(ours: &mut grader_api::Deck, theirs: &mut grader_api::Deck, count: usize) {
    assert_eq!(ours.remaining(), theirs.remaining());
    for _ in 0..count {
        assert_eq!(ours.deal(), theirs.deal());
    }
}

mod tableau {
    use super::*;
    use grader_api::source::Generator;
    use grader_api::tableau::{RandomScripts, State, Step, Tableau, stand_in};
    use grader_api::{Card, Deck};

    #[test]
    fn every_method_answers_as_the_reference_on_random_scripts_with_the_held_row_edited() {
        let mut scripts = Vec::new();
        RandomScripts {
            count: 200,
            seed: 11,
        }
        .generate(&mut |script| {
            scripts.push(script);
            true
        });
        linked_to_the_reference("tableau", || {
            for (index, script) in scripts.iter().enumerate() {
                let mut ours = reference::tableau::Table::new();
                let mut theirs = stand_in::Table::new();
                let mut our_deck = Deck::stacked_seeded(script.deck.clone(), index as u64);
                let mut their_deck = our_deck.clone();
                for (at, step) in script.steps.iter().enumerate() {
                    match *step {
                        Step::Deal => {
                            ours.deal_from(&mut our_deck);
                            theirs.deal_from(&mut their_deck);
                        }
                        Step::Toggle(card) => {
                            ours.toggle_selection(card);
                            theirs.toggle_selection(card);
                        }
                        Step::Play => {
                            ours.move_selected_to_play_area();
                            theirs.move_selected_to_play_area();
                        }
                    }
                    // Now and then the test edits the held row, as a test sets one up.
                    if at % 5 == 4 {
                        let edit = |held: &mut Vec<Card>| {
                            let turn = held.len().min(1);
                            held.rotate_left(turn);
                            held.push(script.deck[at % script.deck.len()]);
                        };
                        edit(ours.held_mut());
                        edit(theirs.held_mut());
                    }
                    let context = script.describe_through(at);
                    assert_eq!(State::of(&ours), State::of(&theirs), "{context}");
                    assert_eq!(ours.held_mut(), theirs.held_mut(), "{context}");
                    assert_eq!(our_deck.remaining(), their_deck.remaining(), "{context}");
                }
                assert_same_deals(&mut our_deck, &mut their_deck, 60);
            }
        });
    }

    #[test]
    fn a_deck_dealt_from_comes_back_whole() {
        linked_to_the_reference("tableau", || {
            for seed in 0..50 {
                let mut our_deck = a_used_deck(seed, (seed % 12) as usize);
                let mut their_deck = our_deck.clone();
                let (mut ours, mut theirs) =
                    (reference::tableau::Table::new(), stand_in::Table::new());
                ours.deal_from(&mut our_deck);
                theirs.deal_from(&mut their_deck);
                assert_eq!(ours.held(), theirs.held());
                assert_same_deals(&mut our_deck, &mut their_deck, 120);
            }
        });
    }

    #[test]
    fn the_templates_example_and_edits_of_the_held_row_between_reads() {
        let card = |text: &str| -> Card { text.parse().unwrap() };
        linked_to_the_reference("tableau", || {
            // The student template's example test, unchanged but for the type's module.
            let mut table = stand_in::Table::new();
            let cards = ["2C", "3C", "4C", "5C", "6C", "7C"].map(card);
            table.held_mut().extend(cards);
            for card in cards {
                table.toggle_selection(card);
            }
            assert_eq!(table.selected(), &cards[..5]);

            // An edit seen by a read, then by a change, then undone and seen again.
            let mut ours = reference::tableau::Table::new();
            let mut theirs = stand_in::Table::new();
            for table in [&mut ours as &mut dyn Tableau, &mut theirs] {
                table.held_mut().extend(cards);
            }
            assert_eq!(ours.held(), theirs.held());
            for table in [&mut ours as &mut dyn Tableau, &mut theirs] {
                table.held_mut().retain(|&c| c != card("4C"));
                table.toggle_selection(card("4C"));
                table.toggle_selection(card("5C"));
            }
            assert_eq!(State::of(&ours), State::of(&theirs));
            assert_eq!(theirs.selected(), [card("5C")]);
            for table in [&mut ours as &mut dyn Tableau, &mut theirs] {
                table.held_mut().clear();
                table.move_selected_to_play_area();
            }
            assert_eq!(State::of(&ours), State::of(&theirs));
            assert_eq!(theirs.play_area(), [card("5C")]);
        });
    }

    /// A tableau that overrides the provided `deal_from`: it deals two cards at most.
    struct DealsTwo(reference::tableau::Table);

    impl Tableau for DealsTwo {
        fn new() -> DealsTwo {
            DealsTwo(reference::tableau::Table::new())
        }
        fn held(&self) -> &[Card] {
            self.0.held()
        }
        fn held_mut(&mut self) -> &mut Vec<Card> {
            self.0.held_mut()
        }
        fn selected(&self) -> &[Card] {
            self.0.selected()
        }
        fn play_area(&self) -> &[Card] {
            self.0.play_area()
        }
        fn deal_from(&mut self, deck: &mut Deck) {
            self.0.held_mut().extend(deck.draw());
            self.0.held_mut().extend(deck.draw());
        }
        fn toggle_selection(&mut self, card: Card) {
            self.0.toggle_selection(card)
        }
        fn move_selected_to_play_area(&mut self) {
            self.0.move_selected_to_play_area()
        }
    }

    #[test]
    fn an_overridden_deal_from_is_the_implementations() {
        let submission = grader_api::Submission::new().tableau::<DealsTwo>();
        linked_to(submission, "tableau", || {
            let mut table = stand_in::Table::new();
            let mut deck = Deck::standard();
            table.deal_from(&mut deck);
            assert_eq!(table.held(), cards(&["2C", "2D"]));
            assert_eq!(deck.len(), 50);
        });
    }
}

mod poker {
    use super::*;
    use grader_api::Card;
    use grader_api::poker::{Category, PokerHand, PokerRules, RandomPairs, Ties, stand_in};
    use grader_api::source::Generator;
    use std::cmp::Ordering;

    /// Every rule a spec may choose.
    pub(super) fn every_rule() -> Vec<PokerRules> {
        Ties::ALL
            .into_iter()
            .flat_map(|ties| {
                [true, false].map(|ace_low_straight| PokerRules {
                    ties,
                    ace_low_straight,
                })
            })
            .collect()
    }

    #[test]
    fn every_method_answers_as_the_reference_on_a_thousand_pairs_under_every_rule() {
        let mut pairs = Vec::new();
        RandomPairs {
            count: 1000,
            seed: 5,
        }
        .generate(&mut |pair| {
            pairs.push(pair);
            true
        });
        let rules = every_rule();
        linked_to_the_reference("poker", || {
            for (index, pair) in pairs.iter().enumerate() {
                let (mine, others) = (rules[index % 4], rules[index / 4 % 4]);
                let ours = reference::poker::Hand::new(pair.first.clone(), mine);
                let theirs = stand_in::Hand::new(pair.first.clone(), mine);
                assert_eq!(ours.cards(), theirs.cards());
                assert_eq!(ours.category(), theirs.category(), "{pair:?}");
                assert_eq!(ours.tiebreak(), theirs.tiebreak(), "{pair:?}");
                let our_other = reference::poker::Hand::new(pair.second.clone(), others);
                let their_other = stand_in::Hand::new(pair.second.clone(), others);
                let expected = ours.compare(&our_other);
                // `other` a stand-in (the call back asks the implementation again) or the
                // test's own hand.
                assert_eq!(theirs.compare(&their_other), expected, "{pair:?}");
                assert_eq!(theirs.compare(&our_other), expected, "{pair:?}");
                assert_eq!(their_other.compare(&theirs), our_other.compare(&ours));
                assert_eq!(theirs.compare(&theirs), Ordering::Equal);
            }
        });
    }

    #[test]
    fn the_templates_example() {
        linked_to_the_reference("poker", || {
            let hand = |cards: &[&str]| {
                let cards = cards.iter().map(|card| card.parse().unwrap()).collect();
                stand_in::Hand::new(cards, PokerRules::default())
            };
            let hand = hand(&["5H", "6H", "7H", "8H", "9H"]);
            assert_eq!(hand.category(), Category::StraightFlush);
        });
    }

    /// A hand of the test's own, which may panic when asked its value vector.
    struct Fixed(Option<Vec<u32>>);

    impl PokerHand for Fixed {
        fn new(_: Vec<Card>, _: PokerRules) -> Fixed {
            Fixed(None)
        }
        fn cards(&self) -> &[Card] {
            &[]
        }
        fn category(&self) -> Category {
            Category::HighCard
        }
        fn tiebreak(&self) -> Vec<u32> {
            self.0.clone().expect("the test's hand has no value vector")
        }
    }

    #[test]
    fn compare_calls_the_tests_own_hand_back_and_a_panic_there_comes_back_to_the_test() {
        let pair = PokerRules::default();
        linked_to_the_reference("poker", || {
            let theirs = stand_in::Hand::new(cards(&["9H", "9C", "5D", "5S", "AH"]), pair);
            let ours = reference::poker::Hand::new(theirs.cards().to_vec(), pair);
            for vector in [vec![3, 9, 5, 13], vec![3, 9, 5, 14], vec![3, 9, 6, 2]] {
                let other = Fixed(Some(vector));
                assert_eq!(theirs.compare(&other), ours.compare(&other));
            }
            let panicked = std::panic::catch_unwind(|| theirs.compare(&Fixed(None))).unwrap_err();
            let said = grader_api::stand_in::panic_text(panicked.as_ref());
            assert!(
                said.contains("the test's hand has no value vector"),
                "{said}"
            );
            assert_eq!(theirs.tiebreak(), vec![3, 9, 5, 14]);
        });
    }

    /// A hand that overrides the provided `compare`: it ranks backwards.
    pub(super) struct Backwards(reference::poker::Hand);

    impl PokerHand for Backwards {
        fn new(cards: Vec<Card>, rules: PokerRules) -> Backwards {
            Backwards(reference::poker::Hand::new(cards, rules))
        }
        fn cards(&self) -> &[Card] {
            self.0.cards()
        }
        fn category(&self) -> Category {
            self.0.category()
        }
        fn tiebreak(&self) -> Vec<u32> {
            self.0.tiebreak()
        }
        fn compare(&self, other: &dyn PokerHand) -> Ordering {
            self.0.compare(other).reverse()
        }
    }

    #[test]
    fn an_overridden_compare_is_the_implementations() {
        let submission = grader_api::Submission::new().poker::<Backwards>();
        let rules = PokerRules::default();
        linked_to(submission, "poker", || {
            let pair = stand_in::Hand::new(cards(&["9H", "9C", "5D", "2S", "AH"]), rules);
            let high = stand_in::Hand::new(cards(&["KH", "9D", "5C", "2C", "AS"]), rules);
            assert_eq!(pair.compare(&high), Ordering::Less);
        });
    }
}

mod draw_poker {
    use super::*;
    use grader_api::draw_poker::{DRAW_RULES, DiscardError, DrawGame, DrawTable, stand_in};
    use grader_api::poker::{PokerHand, stand_in::Hand};
    use grader_api::{Card, Deck};

    #[test]
    fn discards_answer_as_the_reference_with_the_hand_and_deck_they_change() {
        linked_to_the_reference("draw_poker", || {
            let (ours, theirs) = (reference::draw_poker::Game::new(), stand_in::Game::new());
            let mut answers = Vec::new();
            for seed in 0..500u64 {
                // Few cards left, so replacements often come from a fresh deck.
                let mut our_deck = a_used_deck(seed, (seed % 8) as usize + 5);
                let mut our_hand: Vec<Card> = (0..3 + seed % 3).map(|_| our_deck.deal()).collect();
                let (mut their_hand, mut their_deck) = (our_hand.clone(), our_deck.clone());
                // Up to four positions of 0 to 6 at random: discards, and refusals of every
                // kind.
                let bits = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
                let positions: Vec<u32> = (0..seed % 5)
                    .map(|i| ((bits >> (i * 4)) % 7) as u32)
                    .collect();
                let context = format!("{our_hand:?} {positions:?}");
                assert_eq!(
                    theirs.dealer_discards(&their_hand),
                    ours.dealer_discards(&our_hand),
                    "{context}"
                );
                let answer = theirs.discard_and_draw(&mut their_hand, &positions, &mut their_deck);
                assert_eq!(
                    answer,
                    ours.discard_and_draw(&mut our_hand, &positions, &mut our_deck),
                    "{context}"
                );
                assert_eq!(their_hand, our_hand, "{context}");
                assert_same_deals(&mut our_deck, &mut their_deck, 60);
                answers.push(answer);
            }
            let count = |kind: fn(&Result<(), DiscardError>) -> bool| {
                answers.iter().filter(|answer| kind(answer)).count()
            };
            assert!(count(|answer| answer.is_ok()) > 100);
            assert!(count(|answer| matches!(answer, Err(DiscardError::TooMany(_)))) > 10);
            assert!(count(|answer| matches!(answer, Err(DiscardError::Repeated(_)))) > 10);
            assert!(count(|answer| matches!(answer, Err(DiscardError::OutOfRange(_)))) > 10);
        });
    }

    #[test]
    fn the_templates_example() {
        linked_to_the_reference("draw_poker", || {
            let mut hand = cards(&["KH", "KD", "3C", "7S", "9H"]);
            let mut deck = Deck::stacked(cards(&["2C", "2D", "2H", "2S"]));
            let refused =
                stand_in::Game::new().discard_and_draw(&mut hand, &[1, 2, 3, 4], &mut deck);
            assert!(refused.is_err());
            assert_eq!(hand, cards(&["KH", "KD", "3C", "7S", "9H"]));
        });
    }

    #[test]
    fn whole_tables_play_as_the_reference_with_the_poker_stand_in_ranking_on_the_same_link() {
        linked_to_the_reference("draw_poker", || {
            let (ours, theirs) = (reference::draw_poker::Game::new(), stand_in::Game::new());
            for seed in 0..100 {
                let table = DrawTable {
                    deck: Vec::new(),
                    seed,
                    player: vec![vec![1, 2], vec![], vec![5, 4, 3], vec![seed as u32 % 5 + 1]],
                    dealer: None,
                };
                let expected = table.play(&ours, &|cards| {
                    Box::new(reference::poker::Hand::new(cards, DRAW_RULES))
                });
                let answered = table.play(&theirs, &|cards| Box::new(Hand::new(cards, DRAW_RULES)));
                assert_eq!(answered, expected, "{}", table.describe());
            }
        });
    }

    #[test]
    fn hands_are_the_ones_the_implementation_registers_with_its_game() {
        let submission = grader_api::Submission::new()
            .draw_poker::<reference::draw_poker::Game, super::poker::Backwards>();
        linked_to(submission, "draw_poker", || {
            let pair = Hand::new(cards(&["9H", "9C", "5D", "2S", "AH"]), DRAW_RULES);
            let high = Hand::new(cards(&["KH", "9D", "5C", "2C", "AS"]), DRAW_RULES);
            assert!(pair.compare(&high).is_lt());
            assert_eq!(
                stand_in::Game::new().dealer_discards(high.cards()),
                reference::draw_poker::Game::new().dealer_discards(high.cards())
            );
        });
    }
}
