use std::io::{self, BufRead, Write};

use grader_api::blackjack::{
    Action, BlackjackGame, BlackjackHand, Outcome, Player, Round, Rules, Tally,
};
use grader_api::{Card, Deck};

use super::{Game, Hand};

/// Seed 001 at the terminal, for `grader play`.
pub const GAME: crate::Game = crate::Game {
    name: "blackjack",
    about: "Seed 001: hit or stand against the dealer, with a running tally",
    options: &[(
        "h17",
        "the dealer hits a soft 17 (H17) instead of standing on it",
    )],
    play: |input, out, seed, options| {
        let rules = Rules {
            dealer_hits_soft_17: options.contains(&"h17"),
        };
        play(input, out, seed, rules).map(|_| ())
    },
};

const CONTROLS: &str =
    "Controls: type h to hit or s to stand; after each hand, y to play again or n to stop.";

/// Plays hands from a deck shuffled from `seed` until the player stops; returns the tally.
pub fn play(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    seed: u64,
    rules: Rules,
) -> io::Result<Tally> {
    let h17 = if rules.dealer_hits_soft_17 {
        "hits"
    } else {
        "stands on"
    };
    writeln!(
        out,
        "Welcome to Blackjack! (deck seed {seed}; the dealer {h17} soft 17)"
    )?;
    writeln!(out, "{CONTROLS}")?;
    let mut deck = Deck::shuffled(seed);
    let mut tally = Tally::default();
    loop {
        writeln!(out)?;
        let mut seat = Seat {
            input: &mut *input,
            out: &mut *out,
            shown: 0,
            ended: false,
            failure: None,
        };
        let round = Game.play_round(&mut deck, &mut seat, &rules);
        let (shown, ended) = (seat.shown, seat.ended);
        if let Some(error) = seat.failure {
            return Err(error);
        }
        report(out, &round, shown)?;
        tally.record(round.outcome);
        if ended || !again(input, out, &tally)? {
            break;
        }
    }
    writeln!(out, "\nThanks for playing! Final tally: {tally}.")?;
    Ok(tally)
}

/// The person at the terminal, as the player of a round.
struct Seat<'a> {
    input: &'a mut dyn BufRead,
    out: &'a mut dyn Write,
    /// How many of the player's cards have been printed.
    shown: usize,
    /// Input ended: stand now and stop after this hand.
    ended: bool,
    failure: Option<io::Error>,
}

impl Seat<'_> {
    fn ask(&mut self, hand: &[Card], total: u32, dealer_shows: Card) -> io::Result<Action> {
        if self.shown == 0 {
            writeln!(self.out, "DEALER shows: {dealer_shows}")?;
            writeln!(self.out, "PLAYER hand: {} = {total}", cards(hand))?;
        } else {
            for card in &hand[self.shown..] {
                writeln!(self.out, "+ {card} = {total}")?;
            }
        }
        self.shown = hand.len();
        loop {
            write!(self.out, "\n[H]it or [S]tand? (total {total}) ")?;
            self.out.flush()?;
            let Some(answer) = read_answer(self.input)? else {
                writeln!(self.out, "\n(end of input: standing)")?;
                self.ended = true;
                return Ok(Action::Stand);
            };
            if let Ok(action) = answer.parse() {
                return Ok(action);
            }
            writeln!(self.out, "`{answer}` is not a move. {CONTROLS}")?;
        }
    }
}

impl Player for Seat<'_> {
    fn decide(&mut self, hand: &[Card], total: u32, dealer_shows: Card) -> Action {
        if self.failure.is_some() {
            return Action::Stand;
        }
        self.ask(hand, total, dealer_shows).unwrap_or_else(|error| {
            self.failure = Some(error);
            Action::Stand
        })
    }
}

/// Prints what the player has not seen yet: their last cards, the dealer's hand, the outcome.
fn report(out: &mut dyn Write, round: &Round, shown: usize) -> io::Result<()> {
    let natural = round.player.len() == 2 && round.dealer.len() == 2 && shown == 0;
    if natural {
        writeln!(
            out,
            "DEALER: {} = {}",
            cards(&round.dealer),
            round.dealer_total
        )?;
        writeln!(
            out,
            "PLAYER: {} = {}",
            cards(&round.player),
            round.player_total
        )?;
    } else {
        print_draws(out, &round.player, shown)?;
    }
    let player_bust = round.player_total > 21;
    if !natural && !player_bust {
        writeln!(
            out,
            "\nDEALER: {} = {}",
            cards(&round.dealer[..2]),
            total(&round.dealer[..2])
        )?;
        print_draws(out, &round.dealer, 2)?;
    }
    let verdict = match round.outcome {
        Outcome::PlayerWins if natural => "Blackjack! You WIN.",
        Outcome::PlayerWins => "You WIN.",
        Outcome::Push => "PUSH: a tie.",
        Outcome::DealerWins if natural => "Dealer has 21... You LOSE.",
        Outcome::DealerWins => "You LOSE.",
    };
    writeln!(out, "{verdict}")
}

/// `+ card = total` for each card of `hand` after the first `from`, marking a bust.
fn print_draws(out: &mut dyn Write, hand: &[Card], from: usize) -> io::Result<()> {
    for count in from + 1..=hand.len() {
        let running = total(&hand[..count]);
        let bust = if running > 21 { " BUST!" } else { "" };
        writeln!(out, "+ {} = {running}{bust}", hand[count - 1])?;
    }
    Ok(())
}

fn again(input: &mut dyn BufRead, out: &mut dyn Write, tally: &Tally) -> io::Result<bool> {
    loop {
        write!(out, "\n[{tally}] Play again (y/n)? ")?;
        out.flush()?;
        match read_answer(input)?
            .as_deref()
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("n" | "no") => return Ok(false),
            Some("y" | "yes") => return Ok(true),
            Some(other) => writeln!(out, "`{other}` is not an answer. {CONTROLS}")?,
        }
    }
}

/// The next line, trimmed; `None` at the end of input.
fn read_answer(input: &mut dyn BufRead) -> io::Result<Option<String>> {
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim().to_string()))
}

fn cards(hand: &[Card]) -> String {
    grader_api::format_cards(hand)
}

fn total(cards: &[Card]) -> u32 {
    let mut hand = Hand::new();
    cards.iter().for_each(|card| hand.add(*card));
    hand.value()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(keys: &str, seed: u64) -> (Tally, String) {
        let mut out = Vec::new();
        let tally = play(&mut keys.as_bytes(), &mut out, seed, Rules::default()).unwrap();
        (tally, String::from_utf8(out).unwrap())
    }

    #[test]
    fn hands_are_tallied_until_the_player_says_no() {
        let (tally, out) = session("s\ny\ns\ny\ns\nn\n", 3);
        assert_eq!(tally.won + tally.tied + tally.lost, 3, "{out}");
        assert!(out.contains("Thanks for playing!"), "{out}");
    }

    #[test]
    fn bad_input_is_answered_with_the_controls() {
        let (_, out) = session("x\nmaybe\n", 3);
        assert!(out.matches("Controls:").count() >= 2, "{out}");
    }

    #[test]
    fn end_of_input_ends_the_game_cleanly() {
        let (tally, out) = session("", 3);
        assert_eq!(tally.won + tally.tied + tally.lost, 1, "{out}");
        assert!(out.ends_with(&format!("Final tally: {tally}.\n")), "{out}");
    }
}
