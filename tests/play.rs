//! `grader play` driven through stdin, as a person at a terminal would.

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
fn the_same_seed_deals_the_same_game() {
    let keys = "s\ny\nh\ns\nn\n";
    let first = play(&["blackjack", "--seed", "77", "--h17"], keys);
    assert_eq!(first, play(&["blackjack", "--seed", "77", "--h17"], keys));
    assert!(first.1.contains("the dealer hits soft 17"), "{}", first.1);
}
