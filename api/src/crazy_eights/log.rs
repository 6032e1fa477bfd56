//! How a Crazy Eights game reads in a report: a turn, a cheat, a game's and a tournament's
//! record, a strategy's response, the table before a turn and at the end, the calls that told
//! each seat the others' turns, and two logs side by side from where they part.

use std::fmt;

use super::{
    Answer, Cheat, CheatKind, GameResult, PLAYERS, PlayerTurn, Response, TableSeen, Told,
    TournamentResult, TurnState, points,
};
use crate::card::{Card, format_cards};

/// The seats of a table a report shows at most.
const SHOWN_SEATS: usize = 2 * PLAYERS;

impl fmt::Display for PlayerTurn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.drew_a_card, self.played_card, self.declared_suit) {
            (true, _, _) => write!(f, "player {} draws", self.player_id),
            (_, Some(card), Some(suit)) => write!(
                f,
                "player {} plays {card}, declares {}",
                self.player_id,
                suit.name()
            ),
            (_, Some(card), None) => write!(f, "player {} plays {card}", self.player_id),
            _ => write!(f, "player {} does nothing", self.player_id),
        }
    }
}

impl fmt::Display for Cheat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            CheatKind::NotHeld => "a card it does not hold",
            CheatKind::DoesNotMatch => "a card that does not match",
            CheatKind::AlreadyPlayed => "a card already played",
        };
        write!(
            f,
            "player {} cheated: played {} ({what})",
            self.player_id, self.card
        )
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "scores   {:?}", self.scores)?;
        match self.winner {
            Some(winner) => writeln!(f, "winner   player {winner}")?,
            None => writeln!(f, "winner   none")?,
        }
        if let Some(cheat) = self.cheater {
            writeln!(f, "cheater  {cheat}")?;
        }
        write!(f, "turns    {}", self.log.len())
    }
}

impl fmt::Display for TournamentResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let games = if self.games == 1 { "game" } else { "games" };
        writeln!(f, "totals   {:?} after {} {games}", self.totals, self.games)?;
        match self.winner {
            Some(winner) => write!(f, "winner   player {winner}")?,
            None => write!(f, "winner   none")?,
        }
        if let Some(cheat) = self.cheater {
            write!(f, "\ncheater  {cheat}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Done => f.write_str("done"),
            Response::Draw(draw) => write!(f, "should draw: {draw}"),
            Response::Card(card) => write!(f, "plays {card}"),
            Response::Suit(suit) => write!(f, "declares {}", suit.name()),
            Response::Unknown(what) => write!(f, "unknown: {what}"),
        }
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Game { result, .. } => write!(f, "{result}"),
            Answer::Tournament(result) => write!(f, "{result}"),
            Answer::Response(response) => write!(f, "{response}"),
            Answer::Names(names) => write!(f, "{}", names.join(", ")),
        }
    }
}

impl fmt::Display for TurnState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "top card {}", self.top)?;
        if let Some(suit) = self.declared {
            write!(f, " (declared {})", suit.name())?;
        }
        write!(f, "{}", HandLines(&self.hands))
    }
}

/// Each seat's hand on a line of its own, with the points it is worth.
struct HandLines<'a>(&'a [Vec<Card>]);

impl fmt::Display for HandLines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (seat, hand) in self.0.iter().enumerate() {
            let worth: u32 = hand.iter().map(|&card| points(card)).sum();
            if hand.is_empty() {
                write!(f, "\nplayer {seat}: (no cards)")?;
            } else {
                write!(
                    f,
                    "\nplayer {seat}: {} ({worth} points)",
                    format_cards(hand)
                )?;
            }
        }
        Ok(())
    }
}

impl TableSeen {
    /// The table after the last turn of `log`: the starter, the top card then, every hand.
    pub fn describe(&self, log: &[PlayerTurn]) -> String {
        // A runner may answer with more seats than a frame seems to hold cards for: a few
        // show that they are wrong, and the rest are counted.
        let shown = &self.hands[..self.hands.len().min(SHOWN_SEATS)];
        let more = match self.hands.len() - shown.len() {
            0 => String::new(),
            n => format!("\n(and {n} more seats)"),
        };
        let Some(starter) = self.starter else {
            return format!("no starter (no turn began){}{more}", HandLines(shown));
        };
        let last_play = log
            .iter()
            .rev()
            .find_map(|turn| turn.played_card.map(|card| (card, turn.declared_suit)));
        let (top, declared) = last_play.unwrap_or((starter, None));
        let table = TurnState {
            top,
            declared,
            hands: shown.to_vec(),
        };
        format!("starter {starter}, {table}{more}")
    }
}

/// The most turns of one call a report lists.
const SHOWN_TURNS: usize = 8;

impl fmt::Display for Told {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: Vec<String> = self
            .turns
            .iter()
            .take(SHOWN_TURNS)
            .map(PlayerTurn::to_string)
            .collect();
        write!(f, "before turn {}: [{}", self.before_turn, shown.join(", "))?;
        match self.turns.len().saturating_sub(SHOWN_TURNS) {
            0 => write!(f, "]"),
            more => write!(f, ", and {more} more]"),
        }
    }
}

/// Where two records of the calls each seat got first part: the seat, and the first of its
/// calls that differs. Of the seats that differ, the one whose difference comes first in
/// the game.
pub(super) fn told_apart(want: &[Vec<Told>], got: &[Vec<Told>]) -> Option<(usize, usize)> {
    let none = Vec::new();
    (0..want.len().max(got.len()))
        .filter_map(|seat| {
            let want = want.get(seat).unwrap_or(&none);
            let got = got.get(seat).unwrap_or(&none);
            let call = (0..want.len().max(got.len())).find(|&i| want.get(i) != got.get(i))?;
            let when = |calls: &[Told]| calls.get(call).map_or(u32::MAX, |told| told.before_turn);
            Some((when(want).min(when(got)), seat, call))
        })
        .min()
        .map(|(_, seat, call)| (seat, call))
}

/// A game's parts: its result, the table at its end, and the calls each seat got.
type GameParts<'a> = (&'a GameResult, &'a TableSeen, &'a [Vec<Told>]);

/// The parts of two answers that are both games.
pub(super) fn both_games<'a>(expected: &'a Answer, actual: &'a Answer) -> Option<[GameParts<'a>; 2]> {
    let parts = |answer: &'a Answer| match answer {
        Answer::Game {
            result,
            table,
            told,
        } => Some((result, table, told.as_slice())),
        _ => None,
    };
    Some([parts(expected)?, parts(actual)?])
}

/// The calls `seat` got from `call` on, a few of them, one a line; or that there were none.
pub(super) fn calls_from(told: &[Vec<Told>], seat: usize, call: usize) -> Vec<String> {
    let shown: Vec<String> = told
        .get(seat)
        .map(|calls| {
            calls
                .iter()
                .skip(call)
                .take(3)
                .map(Told::to_string)
                .collect()
        })
        .unwrap_or_default();
    if shown.is_empty() {
        return vec!["no more calls".into()];
    }
    shown
}

/// The index of the first turn where two logs differ; when they agree, their length: the
/// turn after the last, which a cheat or a draw from an empty pile keeps out of the log.
pub fn first_difference(expected: &[PlayerTurn], actual: &[PlayerTurn]) -> usize {
    (0..expected.len().max(actual.len()))
        .find(|&i| expected.get(i) != actual.get(i))
        .unwrap_or(expected.len())
}

/// Two game logs side by side from a little before the first turn that differs.
pub fn logs_side_by_side(expected: &[PlayerTurn], actual: &[PlayerTurn]) -> String {
    let first = first_difference(expected, actual);
    let mut out = format!("{:<5} {:<40} {}\n", "turn", "expected", "actual");
    for i in first.saturating_sub(3)..(first + 4).min(expected.len().max(actual.len())) {
        let show = |turn: Option<&PlayerTurn>| {
            turn.map(|t| t.to_string())
                .unwrap_or_else(|| "(game over)".into())
        };
        let mark = if i == first { ">" } else { " " };
        out.push_str(&format!(
            "{mark}{:<4} {:<40} {}\n",
            i + 1,
            show(expected.get(i)),
            show(actual.get(i))
        ));
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assignment::Assignment;
    use crate::card::Suit;
    use crate::crazy_eights::Contract;

    #[test]
    fn the_table_at_the_end_shows_the_last_card_played_and_what_each_hand_is_worth() {
        let card = |text: &str| text.parse::<Card>().unwrap();
        let table = TableSeen {
            starter: Some(card("5H")),
            hands: vec![vec![card("8C"), card("KD")], Vec::new()],
        };
        let eight = PlayerTurn {
            player_id: 1,
            drew_a_card: false,
            played_card: Some(card("8S")),
            declared_suit: Some(Suit::Clubs),
        };
        let draw = PlayerTurn {
            player_id: 0,
            drew_a_card: true,
            played_card: None,
            declared_suit: None,
        };
        assert_eq!(
            table.describe(&[eight, draw]),
            "starter 5♥, top card 8♠ (declared clubs)\nplayer 0: 8♣ K♦ (60 points)\nplayer 1: (no cards)"
        );
        assert!(
            table
                .describe(&[draw])
                .starts_with("starter 5♥, top card 5♥\n")
        );
    }

    /// The same game told otherwise is named by the first call that differs, by value:
    /// player 0's `[]` before turn 1 against the turn it was told later; games that read
    /// alike by their first turn that differs.
    #[test]
    fn a_game_told_otherwise_names_the_first_call_that_differs() {
        let turn = |player_id, card: &str| PlayerTurn {
            player_id,
            drew_a_card: false,
            played_card: Some(card.parse().unwrap()),
            declared_suit: None,
        };
        let call = |before_turn, turns: &[PlayerTurn]| Told {
            before_turn,
            turns: turns.to_vec(),
        };
        let game = |told| Answer::Game {
            result: GameResult::default(),
            table: TableSeen::default(),
            told,
        };
        let (first, second) = (turn(0, "5H"), turn(1, "6H"));
        let reference = game(vec![
            vec![call(1, &[]), call(3, &[second])],
            vec![call(2, &[first])],
        ]);
        let one_at_a_time = game(vec![vec![call(3, &[second])], vec![call(2, &[first])]]);
        assert_eq!(
            Contract::detail(&reference, &one_at_a_time),
            Some((
                "told",
                "player 0's process_opponent_actions calls, from the first that differs:\nthe reference's engine:\n  before turn 1: []\n  before turn 3: [player 1 plays 6♥]\nyour engine:\n  before turn 3: [player 1 plays 6♥]".into()
            ))
        );
        assert_eq!(
            Contract::breakdown(&reference, &game(vec![Vec::new(), vec![call(2, &[first])]])),
            Some((
                "player 0, before turn 1: []".into(),
                "player 0, no more calls".into()
            ))
        );
        let played = |turn| Answer::Game {
            result: GameResult {
                log: vec![turn],
                ..GameResult::default()
            },
            table: TableSeen::default(),
            told: Vec::new(),
        };
        assert_eq!(
            Contract::breakdown(&played(first), &played(second)),
            Some((
                "turn 1: player 0 plays 5♥".into(),
                "turn 1: player 1 plays 6♥".into()
            ))
        );
        let long = call(9, &[first; 10]);
        assert!(
            long.to_string().ends_with("player 0 plays 5♥, and 2 more]"),
            "{long}"
        );
    }
}
