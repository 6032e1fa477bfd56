//! Crazy Eights (CS 126): a game engine for four players, and players of your own.
//!
//! The exact rules your engine follows (deal order, the starter 8, turn order, when the
//! game ends, scoring, cheating) are in the documentation of `grader_api::crazy_eights`: the
//! grader plays your engine and the reference engine on the same deck with the same
//! players and compares every turn, the outcome, the hands the players are left with, and
//! what each player is told of the others' turns and when.

use grader_api::crazy_eights::{Engine as EngineTrait, GameResult, PlayerStrategy, PlayerTurn, TournamentResult};
use grader_api::{Card, Deck, Suit};

/// What `submission()` in `lib.rs` registers of this assignment: your types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission
        .crazy_eights::<Engine>()
        .crazy_eights_player::<FirstStrategy>("first")
        // Write a second strategy that plays differently, and register it instead of this.
        .crazy_eights_player::<FirstStrategy>("second")
}

pub struct Engine;

impl EngineTrait for Engine {
    fn new() -> Engine {
        Engine
    }

    /// One game: deal five cards each, one at a time in seat order (`deck.draw()`); turn
    /// over a starter, burying 8s with `deck.bury`; then turns in seat order: tell the
    /// player what the others did, in one `process_opponent_actions` call with every turn
    /// since its own last (all turns so far before its first, so `[]` for player 0 before
    /// turn 1; the grader checks every call each player gets), ask `should_draw_card`,
    /// then draw for it or take `play_card` and check the card (not already played, held,
    /// legal — `grader_api::crazy_eights::is_legal`), asking `declare_suit` after an 8. End on an
    /// empty hand or an empty draw pile and score with `grader_api::crazy_eights::points`;
    /// a draw from an empty pile (the deal and the starter took the whole deck) ends the game
    /// at once, unlogged, with no winner. Log every turn as a `PlayerTurn`. Report a cheater
    /// and stop at once, without logging the cheating turn.
    fn play_game(&self, players: &mut [Box<dyn PlayerStrategy>], deck: &mut Deck) -> GameResult {
        let _ = (players, deck);
        todo!()
    }

    /// `init` every player (`grader_api::crazy_eights::init_players` does it), then play games
    /// until a total reaches `target` or someone cheats; before each game after the first,
    /// `reset` every player and `deck.renew()`. Add each game's scores to the totals. The
    /// highest total wins; on a tie for it, the lowest seat among those tied. A cheat ends
    /// the tournament with no winner, the totals as they were before that game.
    fn play_tournament(&self, players: &mut [Box<dyn PlayerStrategy>], deck: &mut Deck, target: u32) -> TournamentResult {
        let _ = (players, deck, target);
        todo!()
    }
}

/// Your first strategy. It must only make legal moves; register it in `submission()`
/// with a name. Keep your hand up to date from `receive_initial_cards` and `receive_card`.
#[derive(Default)]
pub struct FirstStrategy {
    hand: Vec<Card>,
}

impl PlayerStrategy for FirstStrategy {
    fn init(&mut self, player_id: u32, opponent_ids: &[u32]) {
        let _ = (player_id, opponent_ids);
        todo!()
    }

    fn receive_initial_cards(&mut self, cards: &[Card]) {
        let _ = (cards, &self.hand);
        todo!()
    }

    /// Return true to draw; false means `play_card` comes next and must return a legal card.
    fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool {
        let _ = (top, declared_suit);
        todo!()
    }

    fn receive_card(&mut self, card: Card) {
        let _ = card;
        todo!()
    }

    fn play_card(&mut self) -> Card {
        todo!()
    }

    fn declare_suit(&mut self) -> Suit {
        todo!()
    }

    fn process_opponent_actions(&mut self, actions: &[PlayerTurn]) {
        let _ = actions;
        todo!()
    }

    fn reset(&mut self) {
        todo!()
    }
}

// Your own tests go here, beside your code, or in files of `tests/` that `use` this module
// through your crate: `cargo test` runs them, and a course's `your tests` group runs them
// on a correct solution and on the bugs students write. Use only what every solution has
// (`Engine::new`, the trait's methods, `grader_api`), not your own helpers, so they can be
// graded against the others. Each test: set up a small input, call the method, check the
// answer.
#[cfg(test)]
mod tests {
    use super::*;

    use grader_api::crazy_eights::{Harness, init_players};

    /// The winner of a game takes the points; the other players score nothing.
    #[test]
    fn only_the_winner_scores() {
        for seed in 0..20 {
            let mut players: Vec<Box<dyn PlayerStrategy>> =
                (0..4).map(|_| Harness::FirstLegal.player()).collect();
            init_players(&mut players);
            let result = Engine::new().play_game(&mut players, &mut Deck::shuffled(seed));
            if let Some(winner) = result.winner {
                for (player, score) in (0u32..).zip(&result.scores) {
                    if player != winner {
                        assert_eq!(*score, 0, "player {player} of game {seed}");
                    }
                }
            }
        }
    }
}
