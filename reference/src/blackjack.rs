//! The reference blackjack hand and game.

use grader_api::blackjack::{Action, BlackjackGame, BlackjackHand, Outcome, Player, Round, Rules};
use grader_api::card::{ACE, JACK};
use grader_api::{Card, Deck};

#[derive(Default)]
pub struct Hand {
    cards: Vec<Card>,
}

impl Hand {
    /// The total with every ace at 11, and how many aces must drop to 1 to stay at 21 or less.
    fn total_and_drops(&self) -> (u32, u32) {
        let mut total = 0;
        let mut aces = 0;
        for card in &self.cards {
            total += match card.value() {
                ACE => {
                    aces += 1;
                    11
                }
                v if v >= JACK => 10,
                v => u32::from(v),
            };
        }
        let mut drops = 0;
        while total - 10 * drops > 21 && drops < aces {
            drops += 1;
        }
        (total - 10 * drops, aces - drops)
    }
}

impl BlackjackHand for Hand {
    fn new() -> Hand {
        Hand::default()
    }

    fn add(&mut self, card: Card) {
        self.cards.push(card);
    }

    fn cards(&self) -> &[Card] {
        &self.cards
    }

    fn value(&self) -> u32 {
        self.total_and_drops().0
    }

    fn is_soft(&self) -> bool {
        self.total_and_drops().1 > 0
    }
}

pub struct Game;

impl BlackjackGame for Game {
    fn new() -> Game {
        Game
    }

    fn play_round(&self, deck: &mut Deck, player: &mut dyn Player, rules: &Rules) -> Round {
        let mut dealer = Hand::new();
        let mut hand = Hand::new();
        dealer.add(deck.deal());
        hand.add(deck.deal());
        dealer.add(deck.deal());
        hand.add(deck.deal());
        let finish = |outcome, hand: &Hand, dealer: &Hand| Round {
            outcome,
            player: hand.cards.clone(),
            dealer: dealer.cards.clone(),
            player_total: hand.value(),
            dealer_total: dealer.value(),
        };
        match (hand.value() == 21, dealer.value() == 21) {
            (true, true) => return finish(Outcome::Push, &hand, &dealer),
            (true, false) => return finish(Outcome::PlayerWins, &hand, &dealer),
            (false, true) => return finish(Outcome::DealerWins, &hand, &dealer),
            (false, false) => {}
        }
        let dealer_shows = dealer.cards[1];
        while hand.value() <= 21
            && player.decide(&hand.cards, hand.value(), dealer_shows) == Action::Hit
        {
            hand.add(deck.deal());
        }
        if hand.value() > 21 {
            return finish(Outcome::DealerWins, &hand, &dealer);
        }
        while dealer.value() < 17
            || (rules.dealer_hits_soft_17 && dealer.value() == 17 && dealer.is_soft())
        {
            dealer.add(deck.deal());
        }
        let outcome = match (dealer.value(), hand.value()) {
            (d, _) if d > 21 => Outcome::PlayerWins,
            (d, p) if p > d => Outcome::PlayerWins,
            (d, p) if p == d => Outcome::Push,
            _ => Outcome::DealerWins,
        };
        finish(outcome, &hand, &dealer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grader_api::blackjack::{Policy, PolicyPlayer};

    fn value_of(cards: &[&str]) -> (u32, bool) {
        let mut hand = Hand::new();
        for card in cards {
            hand.add(card.parse().unwrap());
        }
        (hand.value(), hand.is_soft())
    }

    #[test]
    fn the_checked_examples_of_domain_md() {
        assert_eq!(value_of(&["5C", "AC", "AH", "8C"]), (15, false));
        assert_eq!(value_of(&["AH", "5C"]), (16, true));
        assert_eq!(value_of(&["AH", "5C", "9D"]), (15, false));
        assert_eq!(value_of(&["AH", "5C", "AD"]), (17, true));
        assert_eq!(value_of(&["3C", "AH", "8D"]), (12, false));
        assert_eq!(value_of(&["AH", "AD"]), (12, true));
        assert_eq!(value_of(&["AH", "AD", "10C"]), (12, false));
        assert_eq!(value_of(&["KH", "QD", "JC"]), (30, false));
    }

    fn round(deck: &[&str], policy: Policy, h17: bool) -> Round {
        let mut deck = Deck::stacked(deck.iter().map(|c| c.parse().unwrap()).collect());
        let rules = Rules {
            dealer_hits_soft_17: h17,
        };
        Game.play_round(&mut deck, &mut PolicyPlayer::new(policy), &rules)
    }

    #[test]
    fn the_seeds_sample_rounds() {
        // DEALER 5♠ 10♥ + 7♥ = 22 BUST; PLAYER 7♣ J♣ stands: You WIN.
        let r = round(
            &["5S", "7C", "10H", "JC", "7H"],
            Policy::Script(vec![Action::Stand]),
            false,
        );
        assert_eq!((r.outcome, r.dealer_total), (Outcome::PlayerWins, 22));
        // DEALER A♥ K♣ = 21 against 6♦ 8♦: Dealer has 21... You LOSE.
        let r = round(&["AH", "6D", "KC", "8D"], Policy::HitBelow(17), false);
        assert_eq!((r.outcome, r.player.len()), (Outcome::DealerWins, 2));
        // PLAYER 6♥ 3♣ + 8♥ = 17 + 9♥ = 26 BUST: You LOSE, the dealer draws nothing.
        let r = round(
            &["5H", "6H", "10S", "3C", "8H", "9H"],
            Policy::Script(vec![Action::Hit, Action::Hit]),
            false,
        );
        assert_eq!(
            (r.outcome, r.player_total, r.dealer.len()),
            (Outcome::DealerWins, 26, 2)
        );
    }

    #[test]
    fn soft_17_depends_on_the_rule() {
        let deck = ["AH", "10D", "6H", "8C", "4S"];
        assert_eq!(round(&deck, Policy::Script(vec![]), false).dealer_total, 17);
        assert_eq!(round(&deck, Policy::Script(vec![]), true).dealer_total, 21);
    }

    #[test]
    fn a_round_on_an_empty_deck_goes_on_with_a_fresh_one() {
        let r = round(&[], Policy::HitBelow(17), false);
        assert!(r.player.len() >= 2 && r.dealer.len() >= 2);
    }
}

/// The seed's game in a terminal: hands until the player says no or input ends.
pub mod terminal {
    use std::io::{self, BufRead, Write};

    use grader_api::blackjack::{
        Action, BlackjackGame, BlackjackHand, Outcome, Player, Round, Rules, Tally,
    };
    use grader_api::{Card, Deck};

    use super::{Game, Hand};

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
}
