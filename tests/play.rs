//! `grader play` driven through stdin, as a person at a terminal would: blackjack, draw, then crazy_eights.

use std::io::Write;
use std::process::{Command, Stdio};

fn play(args: &[&str], keys: &str) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_grader"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the grader starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(keys.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn blackjack_explains_its_controls_shows_totals_and_keeps_a_tally() {
    // Seed 9's first hand is not a natural, so the player is asked.
    let (code, out) = play(&["blackjack", "--seed", "9"], "h\ns\ny\ns\nn\n");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("Controls: type h to hit or s to stand"),
        "{out}"
    );
    assert!(out.contains("DEALER shows: "), "{out}");
    assert!(out.contains("[H]it or [S]tand? (total "), "{out}");
    assert!(
        out.contains("\nDEALER: "),
        "the hole card is shown when the dealer plays:\n{out}"
    );
    assert!(out.contains("Play again (y/n)?"), "{out}");
    assert!(
        out.contains("Thanks for playing! Final tally: Won: "),
        "{out}"
    );
}

#[test]
fn blackjack_answers_bad_input_with_the_controls_and_never_crashes() {
    let (code, out) = play(&["blackjack", "--seed", "9"], "what\n\n42\ns\nperhaps\nn\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("`what` is not a move. Controls:"), "{out}");
    assert!(
        out.contains("`perhaps` is not an answer. Controls:"),
        "{out}"
    );
}

#[test]
fn blackjack_ends_cleanly_at_the_end_of_input() {
    let (code, out) = play(&["blackjack", "--seed", "9"], "");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("(end of input: standing)"), "{out}");
    assert!(out.trim_end().ends_with('.'), "{out}");
}

#[test]
fn the_same_seed_deals_the_same_blackjack_game() {
    let keys = "s\ny\nh\ns\nn\n";
    let first = play(&["blackjack", "--seed", "77", "--h17"], keys);
    assert_eq!(first, play(&["blackjack", "--seed", "77", "--h17"], keys));
    assert!(first.1.contains("the dealer hits soft 17"), "{}", first.1);
}

/// Each hand shown with positions after `label`, as its five cards. (A piped stdin is not
/// echoed, so what follows a prompt shares its line.)
fn hands_after<'a>(out: &'a str, label: &str) -> Vec<Vec<&'a str>> {
    out.split(label)
        .skip(1)
        .map(|rest| rest.lines().next().unwrap_or_default())
        .map(|hand| {
            hand.split("  ")
                .map(|slot| slot.trim().split_once(": ").expect("`n: card`").1)
                .collect()
        })
        .collect()
}

#[test]
fn two_hands_with_discards_are_shown_classified_judged_and_tallied() {
    let (code, out) = play(&["draw_poker", "--seed", "4"], "2\n1 5\ny\n3\n2 3 4\nn\n");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("Welcome to five-card draw! (deck seed 4)"),
        "{out}"
    );
    assert!(
        out.contains("Controls: type how many cards to discard"),
        "{out}"
    );
    assert_eq!(
        out.matches("How many cards do you want to discard (0-3)?")
            .count(),
        2,
        "{out}"
    );
    assert_eq!(
        out.matches("Which ones (positions 1-5, separated by spaces)?")
            .count(),
        2,
        "{out}"
    );
    let (dealt, drawn) = (
        hands_after(&out, "Your hand:  "),
        hands_after(&out, "Your new hand:  "),
    );
    assert_eq!((dealt.len(), drawn.len()), (2, 2), "{out}");
    // Only the discarded positions change.
    for (hand, kept) in [(0, &[1, 2, 3][..]), (1, &[0, 4])] {
        for &position in kept {
            assert_eq!(dealt[hand][position], drawn[hand][position], "{out}");
        }
    }
    assert_ne!(dealt[0][0], drawn[0][0], "{out}");
    assert_ne!(dealt[1][2], drawn[1][2], "{out}");
    assert_eq!(out.matches("\nYou have ").count(), 2, "{out}");
    assert_eq!(out.matches("\nThe dealer has ").count(), 2, "{out}");
    assert_eq!(out.matches("\nThe dealer's hand:  ").count(), 2, "{out}");
    let verdicts = ["You win!", "The dealer wins.", "It's a tie."]
        .iter()
        .map(|v| out.matches(&format!("\n{v}\n")).count())
        .sum::<usize>();
    assert_eq!(verdicts, 2, "{out}");
    assert!(out.contains("Play another hand (y/n)?"), "{out}");
    let last = out.trim_end().lines().last().unwrap();
    assert!(
        last.starts_with("Thanks for playing! You won ") && last.contains(", the dealer won "),
        "{out}"
    );
}

#[test]
fn bad_input_is_explained_and_asked_again_never_a_crash() {
    let keys = "two\n4\n3\nx y z\n1 2 3 4\n1 2 7\n1 1 2\n1 2\n1 2 3\nperhaps\nn\n";
    let (code, out) = play(&["draw_poker", "--seed", "4"], keys);
    assert_eq!(code, 0, "{out}");
    for explanation in [
        "`two` is not a number: type 0, 1, 2 or 3.",
        "You may discard at most 3 cards, not 4.",
        "`x` is not a position: type numbers from 1 to 5",
        "Those positions won't do: 4 positions: at most 3 cards may be discarded.",
        "Those positions won't do: position 7 is not one of 1 to 5.",
        "Those positions won't do: position 1 is given twice.",
        "You said 3 cards, so type 3 positions; you typed 2.",
        "`perhaps` is not an answer: type y or n.",
    ] {
        assert!(out.contains(explanation), "{explanation}\n{out}");
    }
    assert_eq!(out.matches("How many cards").count(), 3, "{out}");
    assert_eq!(out.matches("Which ones").count(), 6, "{out}");
    assert!(
        out.trim_end().ends_with("(0 ties).") || out.trim_end().ends_with("(1 tie)."),
        "{out}"
    );
}

#[test]
fn end_of_input_mid_game_ends_cleanly() {
    for keys in ["", "2\n", "2\n1 2\n", "2\n1 2\ny\n"] {
        let (code, out) = play(&["draw_poker", "--seed", "4"], keys);
        assert_eq!(code, 0, "{keys:?}\n{out}");
        let last = out.trim_end().lines().last().unwrap();
        assert!(
            last.starts_with("Thanks for playing! You won "),
            "{keys:?}\n{out}"
        );
    }
    let (_, out) = play(&["draw_poker", "--seed", "4"], "2\n");
    assert!(
        out.contains("(end of input: this hand is not played out)"),
        "{out}"
    );
    assert!(
        out.ends_with("You won 0 hands, the dealer won 0 (0 ties).\n"),
        "{out}"
    );
}

#[test]
fn the_same_seed_deals_the_same_draw_game() {
    let keys = "1\n3\ny\n0\ny\n3\n5 4 1\nn\n";
    let first = play(&["draw_poker", "--seed", "77"], keys);
    assert_eq!(first, play(&["draw_poker", "--seed", "77"], keys));
    assert_ne!(first.1, play(&["draw_poker", "--seed", "78"], keys).1);
}

#[test]
fn a_blackjack_rule_is_refused_for_draw() {
    let output = Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(["play", "draw_poker", "--h17"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("--h17 is an option of `grader play blackjack`")
    );
}

/// The first hand `grader play crazy_eights` shows on `seed`: each card as printed, and whether it
/// is marked as one that can be played.
fn first_crazy_eights_hand(seed: &str) -> Vec<(String, bool)> {
    let (_, out) = play(&["crazy_eights", "--seed", seed], "");
    let hand = out
        .lines()
        .find_map(|line| line.strip_prefix("Your hand (* can be played):  "))
        .unwrap_or_else(|| panic!("no hand shown:\n{out}"));
    hand.split("  ")
        .map(|slot| {
            let card = slot.split_once(": ").expect("`n: card`").1;
            match card.strip_suffix('*') {
                Some(card) => (card.to_string(), true),
                None => (card.to_string(), false),
            }
        })
        .collect()
}

#[test]
fn crazy_eights_watch_prints_every_turn_the_scores_and_the_winner() {
    let (code, out) = play(&["crazy_eights", "--seed", "3", "--watch"], "");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("Watching Crazy Eights (deck seed 3;"),
        "{out}"
    );
    assert!(
        out.contains("\n=== Game 1 ===\nplayer 0 is dealt "),
        "{out}"
    );
    assert!(out.contains("\nstarter: "), "{out}");
    assert!(out.contains("\n  player 0 plays "), "{out}");
    assert!(out.contains("\n  player 1 draws ("), "{out}");
    assert!(out.contains(", declares "), "{out}");
    let games = out.matches("\n=== Game ").count();
    assert!(games >= 2, "{out}");
    assert_eq!(
        out.matches("\nGame ").count(),
        games,
        "one score line a game:\n{out}"
    );
    assert_eq!(out.matches("\nRunning totals: ").count(), games, "{out}");
    assert!(!out.contains("Play which card"), "{out}");
    let last = out.trim_end().lines().last().unwrap();
    assert!(
        last.starts_with("Player ") && last.contains(") wins the tournament with "),
        "{out}"
    );
}

#[test]
fn crazy_eights_bad_input_is_explained_and_asked_again_never_a_cheat() {
    // Seed 0 deals the human an 8 and cards that don't match the starter.
    let hand = first_crazy_eights_hand("0");
    let illegal = hand.iter().position(|(_, legal)| !legal).unwrap() + 1;
    let eight = hand
        .iter()
        .position(|(card, _)| card.starts_with('8'))
        .unwrap()
        + 1;
    let keys = format!("two\n0\n6\n{illegal}\n{eight}\npurple\nh\n");
    let (code, out) = play(&["crazy_eights", "--seed", "0"], &keys);
    assert_eq!(code, 0, "{out}");
    for explanation in [
        "`two` is not a card number: type a number from 1 to 5, or d to draw.".to_string(),
        "There is no card 0: your cards are numbered 1 to 5.".into(),
        "There is no card 6: your cards are numbered 1 to 5.".into(),
        format!("{} does not match ", hand[illegal - 1].0),
        format!("You play {}.", hand[eight - 1].0),
        "`purple` is not a suit: type c, d, h or s".into(),
        "You declare hearts.".into(),
    ] {
        assert!(out.contains(&explanation), "{explanation}\n{out}");
    }
    assert_eq!(
        out.matches("Declare which suit (c/d/h/s or clubs/diamonds/hearts/spades)?")
            .count(),
        2,
        "{out}"
    );
    assert!(!out.contains("cheated"), "{out}");
    assert!(
        out.contains("(end of input: playing on automatically)"),
        "{out}"
    );
}

#[test]
fn crazy_eights_ends_cleanly_at_the_end_of_input() {
    for keys in ["", "d\n", "d\nd\n1\n"] {
        let (code, out) = play(&["crazy_eights", "--seed", "5"], keys);
        assert_eq!(code, 0, "{keys:?}\n{out}");
        assert_eq!(
            out.matches("(end of input: playing on automatically)")
                .count(),
            1,
            "{keys:?}\n{out}"
        );
        assert!(out.contains("\nGame 1 scores: you: "), "{keys:?}\n{out}");
        assert!(out.contains("\nFinal totals: you: "), "{keys:?}\n{out}");
        let last = out.trim_end().lines().last().unwrap();
        assert!(last.contains(" the tournament with "), "{keys:?}\n{out}");
    }
}

#[test]
fn the_same_seed_deals_the_same_crazy_eights_tournament() {
    let keys = "d\n1\n2\nd\n3\nc\n";
    let first = play(&["crazy_eights", "--seed", "77"], keys);
    assert_eq!(first, play(&["crazy_eights", "--seed", "77"], keys));
    assert_ne!(first.1, play(&["crazy_eights", "--seed", "78"], keys).1);
    let watched = play(&["crazy_eights", "--seed", "77", "--watch"], "");
    assert_eq!(
        watched,
        play(&["crazy_eights", "--seed", "77", "--watch"], "")
    );
}

#[test]
fn options_of_one_game_are_refused_for_the_others() {
    for (args, complaint) in [
        (
            &["play", "draw_poker", "--watch"][..],
            "--watch is an option of `grader play crazy_eights`",
        ),
        (
            &["play", "blackjack", "--watch"],
            "--watch is an option of `grader play crazy_eights`",
        ),
        (
            &["play", "crazy_eights", "--h17"],
            "--h17 is an option of `grader play blackjack`",
        ),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_grader"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains(complaint),
            "{args:?}"
        );
    }
}
