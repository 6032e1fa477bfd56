//! Crazy Eights engines written otherwise than the reference, correctly: every test must
//! pass them. Its bugs are the library's, `reference::crazy_eights::bugs`.

use super::*;

/// Correct engines written otherwise than the reference: every test must pass them.
pub fn alternatives() -> Vec<Mutant> {
    vec![
        Mutant::of(
            "crazy_eights",
            "alternative-scores-by-seat",
            "not a bug: a game's scores filled seat by seat in a loop, not by one match.",
            &[(
                "    let scores = match (cheater, winner) {\n        (Some(_), _) => vec![0; hands.len()],\n        (None, Some(winner)) => (0..hands.len())\n            .map(|seat| if seat == winner { all } else { 0 })\n            .collect(),\n        (None, None) => hand_points.iter().map(|own| all - own).collect(),\n    };\n",
                "    let mut scores = vec![0; hands.len()];\n    if cheater.is_none() {\n        for (seat, own) in hand_points.iter().enumerate() {\n            scores[seat] = match winner {\n                Some(winner) if winner == seat => all,\n                Some(_) => 0,\n                None => all - own,\n            };\n        }\n    }\n",
            )],
        ),
        Mutant::of(
            "crazy_eights",
            "alternative-turns-kept-for-each-player",
            "not a bug: the turns a player has not heard kept in a list of its own, handed over and emptied before its turn, not sliced from the log.",
            &[
                (
                    "let mut last_turn_of = vec![0usize; seats];",
                    "let mut unheard: Vec<Vec<PlayerTurn>> = vec![Vec::new(); seats];",
                ),
                (
                    "players[seat].process_opponent_actions(&log[last_turn_of[seat]..]);",
                    "players[seat].process_opponent_actions(&std::mem::take(&mut unheard[seat]));",
                ),
                (
                    "            last_turn_of[seat] = log.len();\n",
                    "            for (other, turns) in unheard.iter_mut().enumerate() {\n                if other != seat {\n                    turns.push(turn);\n                }\n            }\n",
                ),
            ],
        ),
    ]
}
