use std::cmp::Ordering;
use std::io::{self, BufRead, Write};

use grader_api::blackjack::{Outcome, Tally};
use grader_api::draw_poker::{DRAW_RULES, DrawGame, MAX_DISCARDS, check_positions};
use grader_api::poker::{Category, PokerHand};
use grader_api::{Card, Deck};

use super::Game;
use crate::poker::Hand;

const CONTROLS: &str = "Controls: type how many cards to discard (0-3), then their positions \
     (1-5) separated by spaces; after each hand, y to play again or n to stop.";

/// Seed 004 at the terminal, for `grader play`.
pub const GAME: crate::Game = crate::Game {
    name: "draw_poker",
    about: "Seed 004: five-card draw against the dealer; discard up to three cards by position",
    options: &[],
    play: |input, out, seed, _| play(input, out, seed).map(|_| ()),
};

/// Plays hands from a deck shuffled from `seed` until the player stops or input ends;
/// returns the tally of the hands played out.
pub fn play(input: &mut dyn BufRead, out: &mut dyn Write, seed: u64) -> io::Result<Tally> {
    writeln!(out, "Welcome to five-card draw! (deck seed {seed})")?;
    play_deck(input, out, Deck::shuffled(seed))
}

/// The session on `deck`, which deals every hand: the player's five, then the dealer's.
fn play_deck(input: &mut dyn BufRead, out: &mut dyn Write, mut deck: Deck) -> io::Result<Tally> {
    writeln!(out, "{CONTROLS}")?;
    let mut tally = Tally::default();
    loop {
        writeln!(out)?;
        let Some(outcome) = play_hand(input, out, &mut deck)? else {
            writeln!(out, "\n(end of input: this hand is not played out)")?;
            break;
        };
        tally.record(outcome);
        if !again(input, out, &tally)? {
            break;
        }
    }
    writeln!(out, "\nThanks for playing! {}", final_words(&tally))?;
    Ok(tally)
}

/// One hand; `None` when input ends before the player has discarded.
fn play_hand(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    deck: &mut Deck,
) -> io::Result<Option<Outcome>> {
    let mut player: Vec<Card> = (0..5).map(|_| deck.deal()).collect();
    let mut dealer: Vec<Card> = (0..5).map(|_| deck.deal()).collect();
    writeln!(out, "Your hand:  {}", positioned(&player))?;
    let Some(discarded) = discard(input, out, &mut player, deck)? else {
        return Ok(None);
    };
    if discarded == 0 {
        writeln!(out, "You keep your hand.")?;
    } else {
        writeln!(out, "Your new hand:  {}", positioned(&player))?;
    }
    let player_hand = Hand::new(player, DRAW_RULES);
    writeln!(out, "You have {}.", described(&player_hand))?;

    // The seed's stub: the reference dealer's own choice of discards.
    let choice = Game.dealer_discards(&dealer);
    let dealer_discarded = match Game.discard_and_draw(&mut dealer, &choice, deck) {
        Ok(()) => choice.len(),
        Err(_) => 0,
    };
    writeln!(out)?;
    match dealer_discarded {
        0 => writeln!(out, "The dealer keeps its hand.")?,
        1 => writeln!(out, "The dealer discards 1 card.")?,
        n => writeln!(out, "The dealer discards {n} cards.")?,
    }
    writeln!(
        out,
        "The dealer's hand:  {}",
        grader_api::format_cards(&dealer)
    )?;
    let dealer_hand = Hand::new(dealer, DRAW_RULES);
    writeln!(out, "The dealer has {}.", described(&dealer_hand))?;

    let (verdict, outcome) = match player_hand.compare(&dealer_hand) {
        Ordering::Greater => ("You win!", Outcome::PlayerWins),
        Ordering::Equal => ("It's a tie.", Outcome::Push),
        Ordering::Less => ("The dealer wins.", Outcome::DealerWins),
    };
    writeln!(out, "{verdict}")?;
    if player_hand.category() == dealer_hand.category() {
        // The seed's tie-breaks are not the casino's: say what decided.
        writeln!(out, "{}", tie_rule(player_hand.category()))?;
    }
    Ok(Some(outcome))
}

/// Asks how many cards and which, until the answers make a valid discard, and makes it;
/// the number discarded, or `None` at the end of input.
fn discard(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    hand: &mut [Card],
    deck: &mut Deck,
) -> io::Result<Option<usize>> {
    let count = loop {
        let Some(answer) = ask(input, out, "How many cards do you want to discard (0-3)?")? else {
            return Ok(None);
        };
        match answer.parse::<usize>() {
            Ok(count) if count <= MAX_DISCARDS => break count,
            Ok(count) => writeln!(
                out,
                "You may discard at most {MAX_DISCARDS} cards, not {count}."
            )?,
            Err(_) => writeln!(out, "`{answer}` is not a number: type 0, 1, 2 or 3.")?,
        }
    };
    if count == 0 {
        return Ok(Some(0));
    }
    loop {
        let Some(answer) = ask(
            input,
            out,
            "Which ones (positions 1-5, separated by spaces)?",
        )?
        else {
            return Ok(None);
        };
        match positions(&answer, count) {
            Ok(positions) => match Game.discard_and_draw(hand, &positions, deck) {
                Ok(()) => return Ok(Some(count)),
                Err(problem) => writeln!(out, "That discard is refused: {problem}.")?,
            },
            Err(problem) => writeln!(out, "{problem}")?,
        }
    }
}

/// The positions typed, when they are `count` valid ones; otherwise what is wrong.
fn positions(answer: &str, count: usize) -> Result<Vec<u32>, String> {
    let mut positions = Vec::new();
    for word in answer.split(|c: char| c.is_whitespace() || c == ',') {
        if word.is_empty() {
            continue;
        }
        match word.parse::<u32>() {
            Ok(position) => positions.push(position),
            Err(_) => {
                return Err(format!(
                    "`{word}` is not a position: type numbers from 1 to 5, like `1 4`."
                ));
            }
        }
    }
    if let Err(problem) = check_positions(&positions) {
        return Err(format!("Those positions won't do: {problem}."));
    }
    if positions.len() != count {
        let cards = if count == 1 { "card" } else { "cards" };
        return Err(format!(
            "You said {count} {cards}, so type {count} position{}; you typed {}.",
            if count == 1 { "" } else { "s" },
            positions.len()
        ));
    }
    Ok(positions)
}

fn again(input: &mut dyn BufRead, out: &mut dyn Write, tally: &Tally) -> io::Result<bool> {
    loop {
        let question = format!("\n[{tally}] Play another hand (y/n)?");
        match ask(input, out, &question)?
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("n" | "no") => return Ok(false),
            Some("y" | "yes") => return Ok(true),
            Some(other) => writeln!(out, "`{other}` is not an answer: type y or n.")?,
        }
    }
}

/// Prints `question` and reads the answer, trimmed; `None` at the end of input.
fn ask(input: &mut dyn BufRead, out: &mut dyn Write, question: &str) -> io::Result<Option<String>> {
    write!(out, "{question} ")?;
    out.flush()?;
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim().to_string()))
}

/// `1: K♥  2: K♣  3: 2♦  4: 7♠  5: 9♥`
fn positioned(hand: &[Card]) -> String {
    let labels: Vec<String> = hand
        .iter()
        .zip(1..)
        .map(|(card, position)| format!("{position}: {card}"))
        .collect();
    labels.join("  ")
}

/// The hand's category as a sentence ends: "two pairs", "a full house", ...
fn described(hand: &Hand) -> String {
    let category = hand.category();
    match category {
        Category::HighCard => match hand.cards().iter().max() {
            Some(high) => format!("nothing better than a high card ({high})"),
            None => "nothing better than a high card".into(),
        },
        Category::Straight | Category::Flush | Category::FullHouse | Category::StraightFlush => {
            format!("a {}", category.label())
        }
        Category::OnePair | Category::TwoPair | Category::ThreeOfAKind | Category::FourOfAKind => {
            category.label().into()
        }
    }
}

/// How two hands of `category` are told apart under the seed's rules (`DRAW_RULES`).
fn tie_rule(category: Category) -> &'static str {
    match category {
        Category::HighCard => {
            "Neither hand has more than a high card: the highest card decides, then its suit (♣ < ♦ < ♥ < ♠)."
        }
        Category::OnePair => {
            "Both hands have one pair: the pair's rank decides; the other cards don't count."
        }
        Category::TwoPair => {
            "Both hands have two pairs: the higher pair decides; the other cards don't count."
        }
        Category::ThreeOfAKind => "Both hands have three of a kind: the rank of the three decides.",
        Category::Straight => {
            "Both hands are straights: the top card decides (the 5 in A-2-3-4-5), then its suit (♣ < ♦ < ♥ < ♠)."
        }
        Category::Flush => {
            "Both hands are flushes: the highest card decides, then its suit (♣ < ♦ < ♥ < ♠)."
        }
        Category::FullHouse => "Both hands are full houses: the rank of the three decides.",
        Category::FourOfAKind => "Both hands have four of a kind: the rank of the four decides.",
        Category::StraightFlush => {
            "Both hands are straight flushes: the top card decides (the 5 in A-2-3-4-5), then its suit (♣ < ♦ < ♥ < ♠)."
        }
    }
}

/// "You won 2 hands, the dealer won 1 (0 ties)."
fn final_words(tally: &Tally) -> String {
    let plural = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "You won {}, the dealer won {} ({}).",
        plural(tally.won, "hand", "hands"),
        tally.lost,
        plural(tally.tied, "tie", "ties")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(text: &str) -> Vec<Card> {
        text.split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect()
    }

    fn session(keys: &str, seed: u64) -> (Tally, String) {
        let mut out = Vec::new();
        let tally = play(&mut keys.as_bytes(), &mut out, seed).unwrap();
        (tally, String::from_utf8(out).unwrap())
    }

    fn stacked(keys: &str, deck: &str) -> (Tally, String) {
        let mut out = Vec::new();
        let deck = Deck::stacked(cards(deck));
        let tally = play_deck(&mut keys.as_bytes(), &mut out, deck).unwrap();
        (tally, String::from_utf8(out).unwrap())
    }

    #[test]
    fn two_hands_with_discards_are_tallied() {
        let (tally, out) = session("2\n1 5\ny\n3\n2 3 4\nn\n", 4);
        assert_eq!(tally.won + tally.tied + tally.lost, 2, "{out}");
        assert_eq!(out.matches("Your new hand:  1: ").count(), 2, "{out}");
        assert_eq!(out.matches("You have ").count(), 2, "{out}");
        assert_eq!(out.matches("The dealer has ").count(), 2, "{out}");
        assert!(out.contains("Play another hand (y/n)?"), "{out}");
        assert!(
            out.ends_with(&format!("{}\n", final_words(&tally))),
            "{out}"
        );
    }

    #[test]
    fn a_stacked_deal_is_discarded_classified_and_judged() {
        // Player K♥ K♣ 2♦ 7♠ 9♥, dealer 3♣ 3♦ 8♠ 8♥ 4♣; the player draws K♠ and 7♦
        // for a full house; the dealer (two pairs) throws the 4♣ for the J♠.
        let deck = "KH KC 2D 7S 9H 3C 3D 8S 8H 4C KS 7D JS";
        let (tally, out) = stacked("2\n3 5\nn\n", deck);
        assert!(
            out.contains("Your hand:  1: K♥  2: K♣  3: 2♦  4: 7♠  5: 9♥\n"),
            "{out}"
        );
        assert!(
            out.contains("Your new hand:  1: K♥  2: K♣  3: K♠  4: 7♠  5: 7♦\n"),
            "{out}"
        );
        assert!(out.contains("You have a full house.\n"), "{out}");
        assert!(out.contains("The dealer discards 1 card.\n"), "{out}");
        assert!(
            out.contains("The dealer's hand:  3♣ 3♦ 8♠ 8♥ J♠\n"),
            "{out}"
        );
        assert!(out.contains("The dealer has two pairs.\n"), "{out}");
        assert!(out.contains("You win!\n"), "{out}");
        assert_eq!((tally.won, tally.tied, tally.lost), (1, 0, 0));
        assert!(
            out.ends_with("You won 1 hand, the dealer won 0 (0 ties).\n"),
            "{out}"
        );
    }

    #[test]
    fn equal_categories_say_what_decided() {
        // Both pairs of kings: a tie, whatever the other cards (the dealer draws 6♦ 8♣ 10♠).
        let deck = "KH KC 2D 7S 9H KS KD 3C 4C 5H 6D 8C 10S";
        let (tally, out) = stacked("0\nn\n", deck);
        assert!(out.contains("The dealer has one pair.\n"), "{out}");
        assert!(
            out.contains("It's a tie.\nBoth hands have one pair: the pair's rank decides"),
            "{out}"
        );
        assert_eq!(tally.tied, 1, "{out}");
        // Ace high against ace high: the suit of the ace decides. The dealer throws its
        // lowest singles, 2♣ 3♦ Q♣, lowest first, and draws 6♥ 7♥ 9♣ into those slots.
        let deck = "AD 10H 6C 4S 2H AC KH QC 3D 2C 6H 7H 9C";
        let (tally, out) = stacked("0\nn\n", deck);
        assert!(
            out.contains("The dealer's hand:  A♣ K♥ 9♣ 7♥ 6♥\n"),
            "{out}"
        );
        assert!(
            out.contains("You win!\nNeither hand has more than a high card"),
            "{out}"
        );
        assert_eq!(tally.won, 1, "{out}");
    }

    #[test]
    fn keeping_every_card_skips_the_positions() {
        let deck = "2C 5D 9H JS AC 3C 3D 8S 8H 4C";
        let (tally, out) = stacked("0\nn\n", deck);
        assert!(!out.contains("Which ones"), "{out}");
        assert!(out.contains("You keep your hand.\n"), "{out}");
        assert!(
            out.contains("You have nothing better than a high card (A♣).\n"),
            "{out}"
        );
        assert_eq!(tally.lost, 1, "{out}");
    }

    #[test]
    fn bad_answers_are_explained_and_asked_again() {
        let keys = "x\n-1\n4\n\n2\none two\n1 2 3 4\n1 7\n3 3\n1\n1 2 3\n1,2\nmaybe\nn\n";
        let (tally, out) = session(keys, 4);
        for explanation in [
            "`x` is not a number: type 0, 1, 2 or 3.",
            "`-1` is not a number",
            "You may discard at most 3 cards, not 4.",
            "`` is not a number",
            "`one` is not a position",
            "Those positions won't do: 4 positions: at most 3 cards may be discarded.",
            "Those positions won't do: position 7 is not one of 1 to 5.",
            "Those positions won't do: position 3 is given twice.",
            "You said 2 cards, so type 2 positions; you typed 1.",
            "You said 2 cards, so type 2 positions; you typed 3.",
            "`maybe` is not an answer: type y or n.",
        ] {
            assert!(out.contains(explanation), "{explanation}\n{out}");
        }
        assert_eq!(out.matches("How many cards").count(), 5, "{out}");
        assert_eq!(out.matches("Which ones").count(), 7, "{out}");
        assert_eq!(tally.won + tally.tied + tally.lost, 1, "{out}");
    }

    #[test]
    fn end_of_input_ends_the_game_cleanly_at_any_prompt() {
        for (keys, hands) in [
            ("", 0),
            ("2\n", 0),
            ("2\n1\n", 0),
            ("1\n1\n", 1),
            ("1\n1\ny\n", 1),
            ("1\n1\ny\n0\n", 2),
        ] {
            let (tally, out) = session(keys, 4);
            assert_eq!(
                tally.won + tally.tied + tally.lost,
                hands,
                "{keys:?}\n{out}"
            );
            assert!(
                out.ends_with(&format!("Thanks for playing! {}\n", final_words(&tally))),
                "{keys:?}\n{out}"
            );
            assert_eq!(
                out.contains("(end of input: this hand is not played out)"),
                hands == 0 || keys.ends_with("y\n"),
                "{keys:?}\n{out}"
            );
        }
    }

    #[test]
    fn the_same_seed_deals_the_same_game() {
        let keys = "1\n2\ny\n0\ny\n3\n1 2 3\nn\n";
        assert_eq!(session(keys, 11), session(keys, 11));
        assert_ne!(session(keys, 11).1, session(keys, 12).1);
    }

    #[test]
    fn categories_read_as_english() {
        let said = |text: &str| described(&Hand::new(cards(text), DRAW_RULES));
        assert_eq!(said("2C 2D 5H 9S JC"), "one pair");
        assert_eq!(said("2C 2D 5H 5S JC"), "two pairs");
        assert_eq!(said("2C 2D 2H 5S JC"), "three of a kind");
        assert_eq!(said("AC 2D 3H 4S 5C"), "a straight");
        assert_eq!(said("2C 7C 9C JC KC"), "a flush");
        assert_eq!(said("2C 2D 2H 5S 5C"), "a full house");
        assert_eq!(said("2C 2D 2H 2S 5C"), "four of a kind");
        assert_eq!(said("9H 10H JH QH KH"), "a straight flush");
        assert_eq!(
            said("2C 5D 9H JS KD"),
            "nothing better than a high card (K♦)"
        );
    }

    #[test]
    fn the_final_words_count_hands_and_ties() {
        let tally = Tally {
            won: 2,
            tied: 1,
            lost: 1,
        };
        assert_eq!(
            final_words(&tally),
            "You won 2 hands, the dealer won 1 (1 tie)."
        );
    }
}
