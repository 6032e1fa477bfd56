//! The reference blackjack hand and game.

use grader_api::blackjack::{Action, BlackjackGame, BlackjackHand, Outcome, Player, Round, Rules};
use grader_api::card::{ACE, JACK};
use grader_api::{Card, Deck};

/// What `submission()` registers of this assignment: the reference's types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission.blackjack::<Hand, Game>()
}

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
pub mod terminal;

/// Bugs students write, as edits of this module: what `grader spec audit` grades specs
/// against.
pub mod bugs;
