//! Crazy Eights' bugs: each the reference with a few edits, the bug it is, and the tests
//! that must catch it.

use crate::bugs::{Bug, Library};

const DEAL: &str = "        for _ in 0..HAND_SIZE {\n            for hand in hands.iter_mut() {\n                hand.extend(deck.draw());\n            }\n        }\n";
const DECLARED: &str = "declared = (card.value() == 8).then(|| players[seat].declare_suit());";
const HELD: &str = "let Some(position) = hands[seat].iter().position(|&c| c == card) else {\n                    return finish(&hands, None, log, Some(cheat(CheatKind::NotHeld)));\n                };";
const TELL: &str =
    "            players[seat].process_opponent_actions(&log[last_turn_of[seat]..]);\n";
const BURY: &str = "        deck.bury(card);\n";
const STARTER: &str = "let Some(mut top) = turn_over_starter(deck) else {";
const CHEAT_ENDS_SETUP: &str = "                result.cheater = game.cheater;\n";
const CHEAT_ENDS_RETURN: &str = "                return result;\n";
const CHEAT_ENDS: &str =
    "                result.cheater = game.cheater;\n                return result;\n";

pub const LIBRARY: Library = Library {
    assignment: "crazy_eights",
    uses: &[],
    bugs,
};

/// Seed 003's engine bugs (DOMAIN.md's Crazy Eights line and others students write), one each.
fn bugs() -> Vec<Bug> {
    vec![
        Bug::new(
            "crazy_eights-strategy-hangs",
            "a strategy whose should_draw_card never returns.",
            &[(
                "        self.inner.should_draw_card(top, declared_suit)",
                "        loop {\n            std::hint::spin_loop();\n        }",
            )],
        )
        .caught_by("your_strategies::strategy_1", &[
            "strategy `eager`, game 1 of 40 (seat 0)",
            "its code failed: ShouldDrawCard",
            "no answer for 1,000 ms (an endless loop?)",
        ])
        .caught_by("your_strategies::strategy_2", &[
            "strategy `cautious`, game 1 of 40 (seat 0)",
            "no answer for 1,000 ms (an endless loop?)",
        ])
        .caught_by("your_strategies_against_other_players", &[
            "strategy `eager`, game 1 of 20 (seat 0)",
            "its code failed: ShouldDrawCard",
            "no answer for 1,000 ms (an endless loop?)",
        ]),
        Bug::new(
            "crazy_eights-strategy-plays-a-card-not-held",
            "a strategy that plays a card it does not hold from its third turn.",
            &[(
                "    const STYLE: Harness = Harness::EightsLast;",
                "    const STYLE: Harness = Harness::Cheater {\n        kind: CheatKind::NotHeld,\n        at_turn: 3,\n    };",
            )],
        )
        .caught_by("your_strategies::strategy_2", &[
            "strategy `cautious`, game 1 of 40",
            "an illegal move: player 0 cheated: played",
            "(a card it does not hold)",
            "turns        1. player 0",
        ])
        .caught_by("your_strategies_against_other_players", &[
            "strategy `cautious`, game 1 of 20 (seat 0)",
            "an illegal move: player 0 cheated: played 2♦ (a card it does not hold)",
        ]),
        Bug::new(
            "crazy_eights-declared-suit-ignored",
            "declared suit ignored: a card is checked against the top card's suit even after an 8.",
            &[(
                "if !is_legal(card, top, declared) {",
                "if !is_legal(card, top, None) {",
            )],
        )
        .caught_by("one_game::four_first_legal_players", &[
            "1    player 0 plays 8♣, declares diamonds     player 0 plays 8♣, declares diamonds",
            ">2    player 1 plays 6♦                        (game over)",
            "cheater  player 1 cheated: played 6♦ (a card that does not match)",
        ])
        .caught_by("generated_games", &[
            ">10   player 1 plays 7♣                        (game over)",
            "before turn 10: top card 8♦ (declared clubs)",
            "cheater  player 1 cheated: played 7♣ (a card that does not match)",
        ]),
        Bug::new(
            "crazy_eights-declared-suit-never-cleared",
            "declared suit never cleared: it stays in force after a card other than an 8 is played.",
            &[
                (
                    DECLARED,
                    "let declared_now = (card.value() == 8).then(|| players[seat].declare_suit());\n                if declared_now.is_some() {\n                    declared = declared_now;\n                }",
                ),
                ("declared_suit: declared,", "declared_suit: declared_now,"),
            ],
        )
        .caught_by("one_game::four_first_legal_players", &[
            "6    player 1 plays 2♥                        player 1 plays 2♥",
            ">7    player 2 plays 8♠, declares diamonds     player 2 plays K♦",
            "expected   scores   [0, 0, 62, 0]",
            "actual     scores   [0, 0, 59, 0]",
        ])
        .caught_by("generated_games", &[
            ">21   player 0 plays 9♦                        player 0 plays Q♣",
            "before turn 21: top card 2♦\n",
        ]),
        Bug::new(
            "crazy_eights-discard-pile-not-updated",
            "discard pile not updated: the starter stays the top card all game.",
            &[
                ("                top = card;\n", ""),
                (STARTER, "let Some(top) = turn_over_starter(deck) else {"),
            ],
        )
        .caught_by("one_game::four_first_legal_players", &[
            "2    player 1 plays 6♦                        player 1 plays 6♦",
            ">3    player 2 plays 4♦                        player 2 plays K♦",
            "4    player 3 plays Q♦                        player 3 plays A♠",
        ])
        .caught_by("generated_games", &[
            ">4    player 3 plays 8♣, declares clubs        player 3 plays 8♦, declares clubs",
            "before turn 4: top card K♥\n",
        ]),
        Bug::new(
            "crazy_eights-held-check-missing",
            "card-in-hand check missing: a card not held is played if it matches.",
            &[
                (
                    HELD,
                    "let position = hands[seat].iter().position(|&c| c == card);",
                ),
                (
                    "hands[seat].remove(position);",
                    "if let Some(position) = position {\n                    hands[seat].remove(position);\n                }",
                ),
            ],
        )
        .caught_by("cheaters::a_card_not_held", &[
            "cheater (NotHeld from turn 2)",
            "expected   scores   [0, 0, 0, 0]\n             winner   none\n             cheater  player 1 cheated: played 2♦ (a card it does not hold)",
            "actual     scores   [0, 0, 0, 0]\n             winner   none\n             cheater  player 1 cheated: played 2♦ (a card that does not match)",
        ])
        .caught_by("generated_games_with_a_cheater", &[
            "expected   scores   [0, 0, 0, 0]",
            "cheater  player 1 cheated: played 2♦ (a card it does not hold)",
            ">10   (game over)                              player 1 plays 2♦",
        ]),
        Bug::new(
            "crazy_eights-hand-changed-while-iterating",
            "removing from a hand while iterating it: the played card is looked for by index up to the length the hand had, so the loop runs past its end.",
            &[
                (
                    HELD,
                    "if !hands[seat].contains(&card) {\n                    return finish(&hands, None, log, Some(cheat(CheatKind::NotHeld)));\n                }",
                ),
                (
                    "hands[seat].remove(position);",
                    "for index in 0..hands[seat].len() {\n                    if hands[seat][index] == card {\n                        hands[seat].remove(index);\n                    }\n                }",
                ),
            ],
        )
        .caught_by("one_game::four_first_legal_players", &[
            "expected   scores   [0, 0, 62, 0]",
            "index out of bounds: the len is 4 but the index is 4",
        ])
        .caught_by("generated_games", &[
            "deck: shuffled from seed 2924369832",
            "index out of bounds: the len is 4 but the index is 4",
        ]),
        Bug::new(
            "crazy_eights-cheating-turn-logged",
            "the cheating turn written to the log before the card is checked, and left there when the check ends the game.",
            &[
                (
                    "                let card = players[seat].play_card();\n",
                    "                let card = players[seat].play_card();\n                log.push(PlayerTurn {\n                    player_id: seat as u32,\n                    drew_a_card: false,\n                    played_card: Some(card),\n                    declared_suit: None,\n                });\n",
                ),
                (
                    "                hands[seat].remove(position);\n",
                    "                log.pop();\n                hands[seat].remove(position);\n",
                ),
            ],
        )
        .caught_by("cheaters::a_card_not_held", &[
            ">6    (game over)                              player 1 plays 2♦",
            "the cheating turn is not logged",
        ])
        .caught_by("generated_games_with_a_cheater", &[
            "expected turns 9 but got turns 10  ×200",
            ">10   (game over)                              player 1 plays 2♦",
            "end the game without logging that turn",
        ]),
        Bug::new(
            "crazy_eights-already-played-check-missing",
            "already-played check missing: a replayed card is only caught as not held.",
            &[(
                "                if played.contains(&card) {\n                    return finish(&hands, None, log, Some(cheat(CheatKind::AlreadyPlayed)));\n                }\n",
                "",
            )],
        )
        .caught_by("cheaters::a_card_already_played", &[
            "cheater (AlreadyPlayed from turn 3)",
            "expected   scores   [0, 0, 0, 0]\n             winner   none\n             cheater  player 0 cheated: played 8♣ (a card already played)",
            "actual     scores   [0, 0, 0, 0]\n             winner   none\n             cheater  player 0 cheated: played 8♣ (a card it does not hold)",
        ])
        .caught_by("generated_tournaments_with_a_cheater", &[
            "expected cheater player 3 cheated: played 5♦ (a card already played) but got cheater player 3 cheated: played 5♦ (a card it does not hold)",
        ]),
        Bug::new(
            "crazy_eights-starter-8-kept",
            "starter 8 not buried: an 8 turned over stays the starter.",
            &[(
                "        if card.value() != 8 {\n            return Some(card);\n        }\n",
                "        return Some(card);\n",
            )],
        )
        // Every turn is a draw, so the logs agree: the scores differ, and the tables at the
        // end show why: the submission's starter is the 8♠ the reference buried and player 0
        // drew.
        .caught_by("one_game::a_starter_8_is_buried", &[
            "9♦ 10♦ 8♠ 5♥ 6♥ 7♥",
            "expected   scores   [110, 150, 143, 155]",
            "actual     scores   [110, 105, 98, 110]",
            "at the end the reference's table:\n             starter 5♥, top card 5♥\n             player 0: 2♣ 2♦ 6♣ 6♦ 8♠ J♣ (76 points)",
            "your engine's table:\n             starter 8♠, top card 8♠\n             player 0: 2♣ 2♦ 5♥ 6♣ 6♦ J♣ (31 points)",
        ])
        .caught_by("generated_games", &[
            ">1    player 0 plays 3♥                        player 0 draws",
            "before turn 1: top card 3♦\n",
        ]),
        Bug::new(
            "crazy_eights-starter-8-duplicated",
            "starter 8 buried by duplicating it: it goes back into the deck but also stays on the discard pile, so playing it later is called a cheat.",
            &[
                (
                    "fn turn_over_starter(deck: &mut Deck) -> Option<Card> {",
                    "fn turn_over_starter(deck: &mut Deck, discard: &mut Vec<Card>) -> Option<Card> {",
                ),
                (
                    BURY,
                    "        discard.push(card);\n        deck.bury(card);\n",
                ),
                (
                    STARTER,
                    "let mut played = Vec::new();\n        let Some(mut top) = turn_over_starter(deck, &mut played) else {",
                ),
                ("let mut played = vec![top];", "played.push(top);"),
            ],
        )
        .caught_by("one_game::eights_kept_for_last", &[
            ">19   player 2 plays 8♠, declares clubs        (game over)",
            "cheater  player 2 cheated: played 8♠ (a card already played)",
        ])
        .caught_by("generated_games", &[
            ">29   player 0 plays 8♦, declares spades       (game over)",
            "cheater  player 0 cheated: played 8♦ (a card already played)",
        ]),
        Bug::new(
            "crazy_eights-same-cards-for-everyone",
            "every player dealt the same cards: each card drawn once and given to all four.",
            &[(
                DEAL,
                "        for _ in 0..HAND_SIZE {\n            let card = deck.draw();\n            for hand in hands.iter_mut() {\n                hand.extend(card);\n            }\n        }\n",
            )],
        )
        .caught_by("one_game::four_first_legal_players", &[
            ">1    player 0 plays 8♣, declares diamonds     player 0 plays 2♥",
            "2    player 1 plays 6♦                        player 1 plays 2♦",
            "cheater  player 2 cheated: played 2♦ (a card already played)",
        ])
        .caught_by("generated_games", &[
            ">1    player 0 plays 4♥                        player 0 plays 9♦",
            "cheater  player 1 cheated: played 9♦ (a card already played)",
        ]),
        Bug::new(
            "crazy_eights-dealt-five-at-a-time",
            "five cards dealt to one player, then five to the next, not one at a time round the table.",
            &[(
                DEAL,
                "        for hand in hands.iter_mut() {\n            for _ in 0..HAND_SIZE {\n                hand.extend(deck.draw());\n            }\n        }\n",
            )],
        )
        .caught_by("one_game::four_first_legal_players", &[
            ">1    player 0 plays 8♣, declares diamonds     player 0 draws",
            "2    player 1 plays 6♦                        player 1 draws",
        ])
        .caught_by("generated_games", &[
            "500 of 500 answered wrongly",
            ">1    player 0 plays 4♥                        player 0 plays 7♥",
            "player 0: 9♦ 4♥ 2♠ A♠ 5♣ (21 points)",
        ]),
        Bug::new(
            "crazy_eights-totals-assigned",
            "`=` instead of `+=` in tournament totals: each game's score replaces the total.",
            &[("*total += score;", "*total = *score;")],
        )
        .caught_by("tournaments::to_200", &[
            "expected   totals   [65, 278, 117, 63] after 7 games",
            "actual     totals   [58, 0, 0, 0] after 1000 games",
        ])
        .caught_by("generated_tournaments", &[
            "expected   totals   [18, 0, 264, 168] after 9 games",
            "actual     totals   [0, 0, 104, 0] after 1000 games",
        ]),
        Bug::new(
            "crazy_eights-points-to-the-first-player",
            "points to the first player listed instead of the winner.",
            &[(
                "(None, Some(winner)) => (0..hands.len())\n            .map(|seat| if seat == winner { all } else { 0 })",
                "(None, Some(_)) => (0..hands.len())\n            .map(|seat| if seat == 0 { all } else { 0 })",
            )],
        )
        // The scoring group's winner is player 0, who gets the points either way.
        .caught_by("one_game::four_first_legal_players", &[
            "expected   scores   [0, 0, 62, 0]\n             winner   player 2",
            "actual     scores   [62, 0, 0, 0]\n             winner   player 2",
        ])
        .caught_by("generated_games", &[
            "expected   scores   [0, 0, 39, 0]\n               winner   player 2",
            "actual     scores   [39, 0, 0, 0]\n               winner   player 2",
        ]),
        Bug::new(
            "crazy_eights-no-winner-scores-own-hand",
            "with no winner each player scores its own hand, not the others'.",
            &[(
                "hand_points.iter().map(|own| all - own).collect()",
                "hand_points.clone()",
            )],
        )
        .caught_by("scoring::no_winner_when_the_pile_runs_out", &[
            "expected   scores   [327, 441, 274, 389]",
            "actual     scores   [150, 36, 203, 88]",
        ])
        .caught_by("one_game::drawing_until_the_pile_is_empty", &[
            "expected   scores   [424, 334, 353, 386]",
            "actual     scores   [75, 165, 146, 113]",
        ])
        .caught_by("generated_short_decks", &[
            "expected scores [100, 133, 141, 124] but got scores [66, 33, 25, 42]",
            "expected   scores   [180, 162, 164, 85]",
            "actual     scores   [17, 35, 33, 112]",
        ]),
        Bug::new(
            "crazy_eights-eight-scored-at-face-value",
            "an 8 left in a hand scores 8, not 50.",
            &[(
                ".map(|h| h.iter().map(|&c| points(c)).sum())",
                ".map(|h| {\n            h.iter()\n                .map(|&c| if c.value() == 8 { 8 } else { points(c) })\n                .sum()\n        })",
            )],
        )
        // The logs agree; a generated game's example shows both tables at the end, the 8
        // still held and what each hand is worth.
        .caught_by("generated_games", &[
            "example 1 of a wrong answer",
            "expected   scores   [0, 0, 110, 0]",
            "actual     scores   [0, 0, 68, 0]",
            "at the end the reference's table:\n               starter J♣, top card 8♠ (declared clubs)\n               player 0: 6♥ 8♣ J♥ Q♠ (76 points)",
            "your engine's table:\n               starter J♣, top card 8♠ (declared clubs)\n               player 0: 6♥ 8♣ J♥ Q♠ (76 points)",
        ])
        .caught_by("one_game::a_starter_8_is_buried", &[
            "expected   scores   [110, 150, 143, 155]",
            "actual     scores   [110, 108, 101, 113]",
            "player 0: 2♣ 2♦ 6♣ 6♦ 8♠ J♣ (76 points)",
        ]),
        Bug::new(
            "crazy_eights-declare-suit-never-asked",
            "declare_suit never called: a played 8 declares its own suit.",
            &[(
                DECLARED,
                "declared = (card.value() == 8).then(|| card.suit());",
            )],
        )
        // A generated game's example shows the reference's table before the turn that differs.
        .caught_by("generated_games", &[
            ">8    player 3 plays 8♦, declares clubs        player 3 plays 8♦, declares diamonds",
            "reference  before turn 8: top card J♣\n               player 0: 9♦ 2♠ A♠ (12 points)",
        ])
        .caught_by("one_game::four_first_legal_players", &[
            ">1    player 0 plays 8♣, declares diamonds     player 0 plays 8♣, declares clubs",
            "2    player 1 plays 6♦                        player 1 plays 6♣",
        ]),
        Bug::new(
            "crazy_eights-opponent-actions-never-sent",
            "process_opponent_actions never called.",
            &[(TELL, "")],
        )
        // The cheater picks a card it has not seen; told nothing, it picks one played.
        .caught_by("cheaters::a_cheat_ends_the_tournament", &[
            "cheater  player 3 cheated: played 2♥ (a card it does not hold)",
            "cheater  player 3 cheated: played 2♣ (a card already played)",
        ])
        .caught_by("one_game::four_first_legal_players", &[
            "told       player 0's process_opponent_actions calls, from the first that differs:",
            "before turn 1: []",
            "before turn 5: [player 1 plays 6♦, player 2 plays 4♦, player 3 plays Q♦]",
            "no more calls",
        ])
        .caught_by("generated_games", &[
            "expected player 0, before turn 1: [] but got player 0, no more calls  ×500",
        ]),
        Bug::new(
            "crazy_eights-opponent-actions-one-turn-at-a-time",
            "process_opponent_actions called after each turn for each other player with that turn alone, not once before a player's turn with every turn since its last; player 0 hears nothing before its first turn.",
            &[
                (TELL, ""),
                (
                    "            log.push(turn);\n",
                    "            log.push(turn);\n            for other in (0..seats).filter(|&other| other != seat) {\n                players[other].process_opponent_actions(&[turn]);\n            }\n",
                ),
            ],
        )
        .caught_by("one_game::four_first_legal_players", &[
            "told       player 0's process_opponent_actions calls, from the first that differs:",
            "before turn 1: []",
            "before turn 5: [player 1 plays 6♦, player 2 plays 4♦, player 3 plays Q♦]",
            "before turn 3: [player 1 plays 6♦]",
            "before turn 4: [player 2 plays 4♦]",
        ])
        .caught_by("generated_games", &[
            "expected player 0, before turn 1: [] but got player 0, before turn 3: [player 1 draws]  ×61",
            "before turn 3: [player 1 plays 7♥]",
        ]),
        Bug::new(
            "crazy_eights-game-goes-on-with-an-empty-pile",
            "the game not ending when the draw pile empties: it goes on until a player wants to draw.",
            &[(
                "            if deck.is_empty() {\n                return finish(&hands, None, log, None);\n            }\n",
                "",
            )],
        )
        .caught_by("one_game::a_starter_8_is_buried", &[
            "3    player 2 draws                           player 2 draws",
            ">4    (game over)                              player 3 plays 5♣",
            "expected   scores   [110, 150, 143, 155]\n             winner   none\n             turns    3",
        ])
        .caught_by("one_game::drawing_until_the_pile_is_empty", &[
            "player 3's process_opponent_actions calls, from the first that differs:",
            "no more calls",
            "before turn 32: [player 0 draws, player 1 draws, player 2 draws]",
        ])
        .caught_by("generated_games", &[
            "6 of 500 answered wrongly",
            ">73   (game over)                              player 0 plays 6♦",
        ]),
        Bug::new(
            "crazy_eights-deck-not-renewed",
            "the deck not renewed between tournament games: the next game is dealt from what is left.",
            &[("                deck.renew();\n", "")],
        )
        .caught_by("tournaments::to_200", &[
            "expected   totals   [65, 278, 117, 63] after 7 games",
            "actual     totals   [142, 132, 119, 119] after 1000 games",
        ])
        .caught_by("generated_tournaments", &[
            "expected   totals   [18, 0, 264, 168] after 9 games",
            "actual     totals   [27, 59, 45, 163] after 1000 games",
        ]),
        Bug::new(
            "crazy_eights-tie-for-the-lead-to-the-last-seat",
            "a tournament tied for the lead given to the last tied seat, not the lowest.",
            &[(
                ".position(|&t| t == best)",
                ".rposition(|&t| t == best)",
            )],
        )
        .caught_by("tournaments::a_tie_for_the_lead_goes_to_the_lowest_seat", &[
            "expected   totals   [287, 55, 279, 287] after 11 games\n             winner   player 0",
            "actual     totals   [287, 55, 279, 287] after 11 games\n             winner   player 3",
        ])
        .caught_by("tournaments::a_three_way_tie_for_the_lead_goes_to_the_lowest_of_the_three", &[
            "expected   totals   [108, 430, 430, 430] after 2 games\n             winner   player 1",
            "actual     totals   [108, 430, 430, 430] after 2 games\n             winner   player 3",
        ]),
        Bug::new(
            "crazy_eights-draw-from-an-empty-pile-unwrapped",
            "a draw from an empty pile unwrapped: the engine panics instead of ending the game.",
            &[(
                "                match deck.draw() {\n                    Some(card) => {\n                        hands[seat].push(card);\n                        players[seat].receive_card(card);\n                    }\n                    None => return finish(&hands, None, log, None),\n                }\n",
                "                let card = deck.draw().unwrap();\n                hands[seat].push(card);\n                players[seat].receive_card(card);\n",
            )],
        )
        .caught_by("one_game::a_draw_from_an_empty_pile_ends_the_game", &[
            "expected   scores   [75, 75, 75, 60]\n             winner   none\n             turns    0",
            "called `Option::unwrap()` on a `None` value",
        ])
        .caught_by("generated_short_decks", &[
            "deck: 3♦ 3♠ K♠ J♥ 10♦ 9♥ 4♥ 5♦ J♣ K♥ 7♠ 6♦ A♣ K♦ 8♥ J♦ 7♦ 3♣ 6♠ 9♣ 4♠",
            "called `Option::unwrap()` on a `None` value",
        ]),
        Bug::new(
            "crazy_eights-cheat-does-not-end-the-tournament",
            "a cheat ends the game but not the tournament: the next game starts.",
            &[(CHEAT_ENDS, CHEAT_ENDS_SETUP)],
        )
        .caught_by("cheaters::a_cheat_ends_the_tournament", &[
            "expected   totals   [0, 0, 0, 0] after 1 game",
            "actual     totals   [0, 0, 0, 0] after 1000 games",
        ])
        .caught_by("cheaters::a_cheat_in_a_later_game_keeps_the_totals_so_far", &[
            "expected   totals   [81, 187, 51, 56] after 6 games",
            "actual     totals   [81, 222, 51, 56] after 7 games",
        ])
        .caught_by("generated_tournaments_with_a_cheater", &[
            "expected totals [0, 0, 0, 0] after 1 game but got totals [0, 156, 0, 276] after 10 games",
        ]),
        Bug::new(
            "crazy_eights-cheat-zeroes-the-totals",
            "a cheat that ends a tournament also wipes the totals of the games before it.",
            &[(CHEAT_ENDS, &format!("{CHEAT_ENDS_SETUP}                result.totals.fill(0);\n{CHEAT_ENDS_RETURN}"))],
        )
        .caught_by("cheaters::a_cheat_in_a_later_game_keeps_the_totals_so_far", &[
            "expected   totals   [81, 187, 51, 56] after 6 games",
            "actual     totals   [0, 0, 0, 0] after 6 games",
        ])
        .caught_by("generated_tournaments_with_a_cheater", &[
            "expected totals [0, 0, 0, 49] after 2 games but got totals [0, 0, 0, 0] after 2 games",
        ]),
        Bug::new(
            "crazy_eights-cheat-crowns-the-leader",
            "a tournament a cheat ended is won by whoever leads it.",
            &[(CHEAT_ENDS, &format!("{CHEAT_ENDS_SETUP}                let best = result.totals.iter().copied().max().unwrap_or(0);\n                result.winner = result.totals.iter().position(|&t| t == best).map(|p| p as u32);\n{CHEAT_ENDS_RETURN}"))],
        )
        .caught_by("cheaters::a_cheat_in_a_later_game_keeps_the_totals_so_far", &[
            "expected   totals   [81, 187, 51, 56] after 6 games\n             winner   none",
            "actual     totals   [81, 187, 51, 56] after 6 games\n             winner   player 1",
        ])
        .caught_by("cheaters::a_cheat_ends_the_tournament", &[
            "expected   totals   [0, 0, 0, 0] after 1 game\n             winner   none",
            "actual     totals   [0, 0, 0, 0] after 1 game\n             winner   player 0",
            "It ends a tournament too, which then has no winner",
        ])
        .caught_by("generated_tournaments_with_a_cheater", &[
            "expected winner none but got winner player 0  ×16",
        ]),
    ]
}
