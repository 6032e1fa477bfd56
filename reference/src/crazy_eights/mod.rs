//! The reference Crazy Eights engine, by the rules `grader_api::crazy_eights` documents.

use grader_api::crazy_eights::{
    Cheat, CheatKind, Engine as EngineTrait, GameResult, HAND_SIZE, MAX_GAMES, PlayerStrategy,
    PlayerTurn, TournamentResult, init_players, is_legal, points,
};
use std::marker::PhantomData;

use grader_api::crazy_eights::Harness;
use grader_api::{Card, Deck, Suit};

/// What `submission()` registers of this assignment: the reference's types.
pub fn register(submission: grader_api::Submission) -> grader_api::Submission {
    submission
        .crazy_eights::<Engine>()
        .crazy_eights_player::<Eager>("eager")
        .crazy_eights_player::<Cautious>("cautious")
}

pub struct Engine;

impl EngineTrait for Engine {
    fn new() -> Engine {
        Engine
    }

    fn play_game(&self, players: &mut [Box<dyn PlayerStrategy>], deck: &mut Deck) -> GameResult {
        let seats = players.len();
        let mut hands: Vec<Vec<Card>> = vec![Vec::new(); seats];
        for _ in 0..HAND_SIZE {
            for hand in hands.iter_mut() {
                hand.extend(deck.draw());
            }
        }
        for (player, hand) in players.iter_mut().zip(&hands) {
            player.receive_initial_cards(hand);
        }
        let Some(mut top) = turn_over_starter(deck) else {
            return finish(&hands, None, Vec::new(), None);
        };
        let mut played = vec![top];
        let mut declared: Option<Suit> = None;
        let mut log: Vec<PlayerTurn> = Vec::new();
        let mut last_turn_of = vec![0usize; seats];
        let mut seat = 0;
        loop {
            players[seat].process_opponent_actions(&log[last_turn_of[seat]..]);
            let turn = if players[seat].should_draw_card(top, declared) {
                match deck.draw() {
                    Some(card) => {
                        hands[seat].push(card);
                        players[seat].receive_card(card);
                    }
                    None => return finish(&hands, None, log, None),
                }
                PlayerTurn {
                    player_id: seat as u32,
                    drew_a_card: true,
                    played_card: None,
                    declared_suit: None,
                }
            } else {
                let card = players[seat].play_card();
                let cheat = |kind| Cheat {
                    player_id: seat as u32,
                    kind,
                    card,
                };
                if played.contains(&card) {
                    return finish(&hands, None, log, Some(cheat(CheatKind::AlreadyPlayed)));
                }
                let Some(position) = hands[seat].iter().position(|&c| c == card) else {
                    return finish(&hands, None, log, Some(cheat(CheatKind::NotHeld)));
                };
                if !is_legal(card, top, declared) {
                    return finish(&hands, None, log, Some(cheat(CheatKind::DoesNotMatch)));
                }
                hands[seat].remove(position);
                played.push(card);
                top = card;
                declared = (card.value() == 8).then(|| players[seat].declare_suit());
                PlayerTurn {
                    player_id: seat as u32,
                    drew_a_card: false,
                    played_card: Some(card),
                    declared_suit: declared,
                }
            };
            log.push(turn);
            last_turn_of[seat] = log.len();
            if hands[seat].is_empty() {
                return finish(&hands, Some(seat), log, None);
            }
            if deck.is_empty() {
                return finish(&hands, None, log, None);
            }
            seat = (seat + 1) % seats;
        }
    }

    fn play_tournament(
        &self,
        players: &mut [Box<dyn PlayerStrategy>],
        deck: &mut Deck,
        target: u32,
    ) -> TournamentResult {
        init_players(players);
        let mut result = TournamentResult {
            totals: vec![0; players.len()],
            ..TournamentResult::default()
        };
        while result.games < MAX_GAMES {
            if result.games > 0 {
                players.iter_mut().for_each(|p| p.reset());
                deck.renew();
            }
            let game = self.play_game(players, deck);
            result.games += 1;
            if game.cheater.is_some() {
                result.cheater = game.cheater;
                return result;
            }
            for (total, score) in result.totals.iter_mut().zip(&game.scores) {
                *total += score;
            }
            let best = result.totals.iter().copied().max().unwrap_or(0);
            if best >= target {
                result.winner = result
                    .totals
                    .iter()
                    .position(|&t| t == best)
                    .map(|p| p as u32);
                return result;
            }
        }
        result
    }
}

/// A style of play the reference's strategies borrow from the harness's players.
pub trait Style {
    const STYLE: Harness;
}

/// A registered strategy playing in a harness player's style.
pub struct Styled<S: Style> {
    inner: Box<dyn PlayerStrategy>,
    style: PhantomData<S>,
}

impl<S: Style> Default for Styled<S> {
    fn default() -> Self {
        Styled {
            inner: S::STYLE.player(),
            style: PhantomData,
        }
    }
}

impl<S: Style> PlayerStrategy for Styled<S> {
    fn init(&mut self, player_id: u32, opponent_ids: &[u32]) {
        self.inner.init(player_id, opponent_ids);
    }
    fn receive_initial_cards(&mut self, cards: &[Card]) {
        self.inner.receive_initial_cards(cards);
    }
    fn should_draw_card(&mut self, top: Card, declared_suit: Option<Suit>) -> bool {
        self.inner.should_draw_card(top, declared_suit)
    }
    fn receive_card(&mut self, card: Card) {
        self.inner.receive_card(card);
    }
    fn play_card(&mut self) -> Card {
        self.inner.play_card()
    }
    fn declare_suit(&mut self) -> Suit {
        self.inner.declare_suit()
    }
    fn process_opponent_actions(&mut self, actions: &[PlayerTurn]) {
        self.inner.process_opponent_actions(actions);
    }
    fn reset(&mut self) {
        self.inner.reset();
    }
}

pub struct PlaysFirstLegal;
impl Style for PlaysFirstLegal {
    const STYLE: Harness = Harness::FirstLegal;
}

pub struct KeepsEights;
impl Style for KeepsEights {
    const STYLE: Harness = Harness::EightsLast;
}

/// Plays the first legal card it holds.
pub type Eager = Styled<PlaysFirstLegal>;
/// Keeps its eights for when nothing else is legal.
pub type Cautious = Styled<KeepsEights>;

/// The starter: 8s go back into the deck where its generator says; `None` when the deck
/// is empty or holds nothing but 8s.
fn turn_over_starter(deck: &mut Deck) -> Option<Card> {
    loop {
        let card = deck.draw()?;
        if card.value() != 8 {
            return Some(card);
        }
        if deck.remaining().iter().all(|c| c.value() == 8) {
            return None;
        }
        deck.bury(card);
    }
}

fn finish(
    hands: &[Vec<Card>],
    winner: Option<usize>,
    log: Vec<PlayerTurn>,
    cheater: Option<Cheat>,
) -> GameResult {
    let hand_points: Vec<u32> = hands
        .iter()
        .map(|h| h.iter().map(|&c| points(c)).sum())
        .collect();
    let all: u32 = hand_points.iter().sum();
    let scores = match (cheater, winner) {
        (Some(_), _) => vec![0; hands.len()],
        (None, Some(winner)) => (0..hands.len())
            .map(|seat| if seat == winner { all } else { 0 })
            .collect(),
        (None, None) => hand_points.iter().map(|own| all - own).collect(),
    };
    GameResult {
        scores,
        winner: winner.map(|w| w as u32),
        log,
        cheater,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grader_api::crazy_eights::Answer;
    use grader_api::crazy_eights::{Harness, Setup, Told};

    fn game(players: [Harness; 4], seed: u64) -> GameResult {
        let setup = Setup {
            deck: Vec::new(),
            seed,
            players: players.to_vec(),
            target: 0,
        };
        match grader_api::crazy_eights::play(&setup, &Engine) {
            Answer::Game { result, .. } => result,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn legal_players_finish_with_a_winner_or_an_empty_pile() {
        for seed in 0..200 {
            let result = game(
                [
                    Harness::FirstLegal,
                    Harness::RandomLegal(seed),
                    Harness::EightsLast,
                    Harness::FirstLegal,
                ],
                seed,
            );
            assert!(result.cheater.is_none(), "seed {seed}");
            match result.winner {
                Some(w) => {
                    assert!(result.scores[w as usize] > 0 || result.scores.iter().all(|&s| s == 0))
                }
                None => assert!(result.scores.iter().sum::<u32>() > 0, "seed {seed}"),
            }
            for turn in &result.log {
                assert_eq!(
                    turn.declared_suit.is_some(),
                    turn.played_card.is_some_and(|c| c.value() == 8)
                );
            }
        }
    }

    /// One call before each of a player's turns, with every turn since its last: player 0
    /// is told `[]` before turn 1, player 1 turn 1 before turn 2, player 0 turns 2 to 4
    /// before turn 5; so each seat hears every other seat's turn once, in order.
    #[test]
    fn each_player_is_told_the_turns_since_its_last_before_each_of_its_turns() {
        let setup = Setup {
            deck: Vec::new(),
            seed: 1,
            players: vec![Harness::FirstLegal; 4],
            target: 0,
        };
        let Answer::Game { result, told, .. } = grader_api::crazy_eights::play(&setup, &Engine)
        else {
            panic!("not a game")
        };
        let log = &result.log;
        assert!(log.len() > 8 && result.cheater.is_none());
        let call = |before_turn: u32, turns: &[PlayerTurn]| Told {
            before_turn,
            turns: turns.to_vec(),
        };
        assert_eq!(told[0][..2], [call(1, &[]), call(5, &log[1..4])]);
        assert_eq!(told[1][0], call(2, &log[..1]));
        for (seat, calls) in told.iter().enumerate() {
            let own_turns: Vec<u32> = (1..=log.len() as u32)
                .filter(|turn| (turn - 1) as usize % 4 == seat)
                .collect();
            let before: Vec<u32> = calls.iter().map(|told| told.before_turn).collect();
            assert_eq!(before, own_turns, "seat {seat}");
            let heard: Vec<PlayerTurn> = calls.iter().flat_map(|told| told.turns.clone()).collect();
            let last = *own_turns.last().unwrap() as usize - 1;
            let others: Vec<PlayerTurn> = log[..last]
                .iter()
                .copied()
                .filter(|turn| turn.player_id as usize != seat)
                .collect();
            assert_eq!(heard, others, "seat {seat}");
        }
    }

    #[test]
    fn every_kind_of_cheater_is_caught_and_named() {
        for kind in CheatKind::ALL {
            let cheater = Harness::Cheater { kind, at_turn: 2 };
            let result = game(
                [
                    Harness::FirstLegal,
                    cheater,
                    Harness::FirstLegal,
                    Harness::FirstLegal,
                ],
                5,
            );
            let cheat = result
                .cheater
                .unwrap_or_else(|| panic!("{kind:?} not caught"));
            assert_eq!((cheat.player_id, cheat.kind), (1, kind));
            assert!(result.scores.iter().all(|&s| s == 0));
        }
    }

    #[test]
    fn declining_to_draw_with_nothing_legal_is_caught_as_a_card_that_does_not_match() {
        let stubborn = Harness::Stubborn { at_turn: 1 };
        let result = game(
            [
                Harness::FirstLegal,
                stubborn,
                Harness::FirstLegal,
                Harness::FirstLegal,
            ],
            25,
        );
        let cheat = result
            .cheater
            .expect("the stubborn player cheats in the spec's game");
        assert_eq!((cheat.player_id, cheat.kind), (1, CheatKind::DoesNotMatch));
    }

    #[test]
    fn a_deck_with_only_an_8_left_for_the_starter_ends_the_game() {
        let mut cards: Vec<Card> = (0..52)
            .filter_map(Card::from_index)
            .filter(|c| c.value() != 8)
            .take(20)
            .collect();
        cards.push("8S".parse().unwrap());
        let setup = Setup {
            deck: cards,
            seed: 1,
            players: vec![Harness::FirstLegal; 4],
            target: 0,
        };
        let Answer::Game { result, .. } = grader_api::crazy_eights::play(&setup, &Engine) else {
            panic!("not a game")
        };
        assert!(result.log.is_empty() && result.winner.is_none());
    }

    #[test]
    fn a_tournament_runs_to_its_target() {
        let setup = Setup {
            deck: Vec::new(),
            seed: 3,
            players: vec![
                Harness::FirstLegal,
                Harness::EightsLast,
                Harness::RandomLegal(1),
                Harness::FirstLegal,
            ],
            target: 200,
        };
        let Answer::Tournament(result) = grader_api::crazy_eights::play(&setup, &Engine) else {
            panic!("not a tournament")
        };
        let winner = result.winner.expect("someone reaches 200") as usize;
        assert!(result.totals[winner] >= 200);
        assert!(result.games >= 1);
    }

    #[test]
    fn drawers_end_the_game_when_the_pile_runs_out() {
        let result = game([Harness::DrawsWhenever; 4], 9);
        assert_eq!(result.winner, None);
        assert!(result.log.iter().all(|t| t.drew_a_card));
        assert_eq!(result.log.len(), 52 - 20 - 1);
    }
}

/// `grader play crazy_eights`: a tournament to 200 points in the terminal, the person at the
/// keyboard as player 0 against three harness players, or (`--watch`) four harness players.
///
/// The reference [`Engine`]'s `play_tournament` runs the tournament; every seat's player is
/// wrapped in a recorder that keeps the hands and turns for the summary after each game.
/// The engine wants `'static` players and the terminal is borrowed, so the tournament runs
/// on a scoped thread that asks the calling thread to print lines and to read answers.
pub mod terminal;

/// Bugs students write, as edits of this module: what `grader spec audit` grades specs
/// against.
pub mod bugs;
