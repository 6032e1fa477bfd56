//! `grader check` end to end: the real binary builds real submission crates and grades them.

mod support;

use std::path::{Path, PathBuf};

use support::{check, failure_of, grader, repo, result_line};

fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures").join(name)
}

/// A score of the results JSON in hundredths, the unit scores are rounded to.
fn hundredths(score: &serde_json::Value) -> u64 {
    let score = score
        .as_f64()
        .unwrap_or_else(|| panic!("{score} is not a number"));
    (score * 100.0).round() as u64
}

/// The sum of every test's `field` (`score` or `max_score`), in hundredths.
fn sum_of_tests(results: &serde_json::Value, field: &str) -> u64 {
    results["tests"]
        .as_array()
        .expect("a list of tests")
        .iter()
        .map(|test| hundredths(&test[field]))
        .sum()
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// One run gives both reports: the human one on stdout and the JSON results in a file.
#[test]
fn the_reference_scores_full_marks_exactly_on_every_group() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reference.json");
    let (code, stdout, stderr) = check(
        &repo().join("reference"),
        &["--format", "json", "--output", out.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("total 600 / 600"), "{stdout}");
    assert!(result_line(&stdout, "plaisante_hand::every_hand").ends_with("ok"));
    let results = read_json(&out);
    // Groups such as 25 points over 13 tests do not divide; the sum must still be 600, not 599.99….
    assert_eq!(
        results["score"].as_f64(),
        Some(600.0),
        "{}",
        results["score"]
    );
    assert_eq!(results["max_score"].as_f64(), Some(600.0));
    assert_eq!(sum_of_tests(&results, "score"), 60_000);
    assert_eq!(sum_of_tests(&results, "max_score"), 60_000);
}

#[test]
fn the_template_fails_every_test_as_not_yet_implemented() {
    let (code, stdout, stderr) = check(&repo().join("student_template"), &[]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    // What the seeds' starter files provide passes: total_value, and the draw stub dealer.
    let passing: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("test ") && l.ends_with(" ok"))
        .collect();
    assert_eq!(passing.len(), 2, "{passing:?}");
    assert!(passing[0].contains("k_k_3_7_9_totals_45"), "{passing:?}");
    assert!(
        passing[1].contains("draw_poker::the_dealers_discards"),
        "{passing:?}"
    );
    let failures = &stdout[..stdout.rfind("\nfailures:").unwrap()];
    let blocks: Vec<&str> = failures.split("\n---- ").skip(1).collect();
    assert!(blocks.len() > 100, "{} failure blocks", blocks.len());
    for block in blocks {
        assert!(
            block.contains("not yet implemented (todo!() at src/"),
            "{block}"
        );
    }
    assert!(
        !stderr.contains("panicked"),
        "the grader itself panicked:\n{stderr}"
    );
}

/// A buggy mutant, the test of its assignment that catches it (without the assignment's
/// prefix), and phrases its failure block must hold to name the difference.
type Caught = (&'static str, &'static str, &'static [&'static str]);

/// Each of DOMAIN.md's Plaisante bugs, the test that catches it, and what its message says.
const BUGS: &[Caught] = &[
    (
        "bug-pair-at-least-two",
        "has_pair::three_kings_is_not_a_pair",
        &["expected   false", "actual     true", "K♥ K♦ K♣ 7♠ 9♥"],
    ),
    (
        "bug-three-at-least-three",
        "has_three_of_a_kind::four_kings_is_not_three_of_a_kind",
        &["expected   false", "actual     true"],
    ),
    (
        "bug-full-house-loose-pair",
        "has_full_house::three_kings_and_two_odd_cards",
        &["expected   false", "actual     true"],
    ),
    (
        "bug-two-pair-counts-at-least-two",
        "has_two_pair::a_full_house_is_not_two_pair",
        &["expected   false", "actual     true"],
    ),
    (
        "bug-straight-repeats",
        "has_straight::5_5_6_7_9_spans_four_but_repeats",
        &["expected   false", "actual     true"],
    ),
    (
        "bug-straight-ace-low",
        "has_straight::a_2_3_4_5_is_not_a_straight_here",
        &["expected   false", "actual     true"],
    ),
    (
        "bug-evaluate-order",
        "evaluate_order::a_full_house_is_also_three_of_a_kind_and_a_pair",
        &["expected   Full House", "actual     Three of a Kind"],
    ),
    (
        "bug-counts-fourteen",
        "count_values::k_k_3_7_9_has_15_cells",
        &["length 14 where 15 was expected", "- expected cell 14 = 0"],
    ),
    (
        "bug-counts-never-reset",
        "has_full_house::kings_full_of_sevens",
        &["expected   true", "actual     false"],
    ),
    (
        "bug-flush-four-cards",
        "has_flush::four_hearts_are_not_a_flush",
        &["expected   false", "actual     true", "(4 cards)"],
    ),
    (
        "bug-score-adds",
        "total_value_and_score::k_k_3_7_9_scores_90",
        &["expected   90", "actual     47"],
    ),
    (
        "bug-straight-before-flush",
        "evaluate_order::2_6_of_hearts_is_a_flush_before_a_straight",
        &["expected   Flush", "actual     Straight"],
    ),
];

/// Each Tableau mutant, the test that catches it, and the diff lines it shows.
const TABLEAU_BUGS: &[Caught] = &[
    (
        "tableau-sixth-card-selectable",
        "the_seeds_walk_through::deal_eight_select_five_a_sixth_refused_deselect_two_play_three",
        &[
            "the state after step 7",
            "- expected selected  2♣ 3♣ 4♣ 5♣ 6♣",
            "+ actual   selected  2♣ 3♣ 4♣ 5♣ 6♣ 7♣",
        ],
    ),
    (
        "tableau-deselect-keeps-card",
        "toggle_selection::toggling_twice_deselects",
        &[
            "the state after step 3",
            "- expected selected  (none)",
            "+ actual   selected  5♣",
        ],
    ),
    (
        "tableau-unheld-card-selectable",
        "toggle_selection::a_card_that_is_not_held_is_refused",
        &[
            "toggle_selection(10♣)",
            "- expected selected  (none)",
            "+ actual   selected  10♣",
        ],
    ),
    (
        "tableau-remove-while-iterating",
        "move_selected_to_play_area::play_five_adjacent_cards",
        &[
            "- expected selected  (none)",
            "+ actual   selected  4♣ 6♣",
            "+ actual   play_area 3♣ 5♣ 7♣",
        ],
    ),
    (
        "tableau-selection-kept-after-play",
        "move_selected_to_play_area::the_selection_is_empty_after_playing",
        &[
            "the state after step 3",
            "- expected selected  (none)",
            "+ actual   selected  2♣",
        ],
    ),
    (
        "tableau-play-area-reversed",
        "move_selected_to_play_area::play_five_adjacent_cards",
        &[
            "- expected play_area 3♣ 4♣ 5♣ 6♣ 7♣",
            "+ actual   play_area 7♣ 6♣ 5♣ 4♣ 3♣",
        ],
    ),
    (
        "tableau-played-cards-stay-held",
        "move_selected_to_play_area::play_five_adjacent_cards",
        &[
            "- expected held      2♣ 8♣ 9♣",
            "+ actual   held      2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣",
        ],
    ),
    (
        "tableau-deselect-removes-from-held",
        "toggle_selection::toggling_twice_deselects",
        &[
            "- expected held      2♣ 3♣ 4♣ 5♣ 6♣ 7♣ 8♣ 9♣",
            "+ actual   held      2♣ 3♣ 4♣ 6♣ 7♣ 8♣ 9♣",
        ],
    ),
    (
        "tableau-play-replaces-play-area",
        "move_selected_to_play_area::plays_add_to_the_end_of_the_play_area",
        &["- expected play_area 8♣ 2♣ 5♣", "+ actual   play_area 5♣"],
    ),
    (
        "tableau-full-selection-refuses-deselect",
        "toggle_selection::a_full_selection_refuses_then_accepts_after_a_deselect",
        &[
            "the state after step 8",
            "- expected selected  2♥ 4♥ 5♥ 6♥",
            "+ actual   selected  2♥ 3♥ 4♥ 5♥ 6♥",
        ],
    ),
];

/// Each Blackjack mutant, the test that catches it, and what its message says.
const BLACKJACK_BUGS: &[Caught] = &[
    (
        "blackjack-aces-always-one",
        "value::a_5_is_16",
        &["A♥ 5♣", "expected   16", "actual     6"],
    ),
    (
        "blackjack-aces-always-eleven",
        "value::5_a_a_8_is_15",
        &["5♣ A♣ A♥ 8♣", "expected   15", "actual     35"],
    ),
    (
        "blackjack-every-ace-drops-at-once",
        "value::a_5_then_a_is_17",
        &["A♥ 5♣ A♦", "expected   17", "actual     7"],
    ),
    (
        "blackjack-ace-fixed-when-added",
        "value::3_a_8_is_12",
        &["3♣ A♥ 8♦", "expected   12", "actual     22"],
    ),
    (
        "blackjack-greedy-per-ace",
        "value::a_a_10_is_12",
        &["A♥ A♦ 10♣", "expected   12", "actual     22"],
    ),
    (
        "blackjack-any-ace-is-soft",
        "is_soft::a_5_9_is_hard",
        &["is_soft()", "expected   false", "actual     true"],
    ),
    (
        "blackjack-face-cards-at-face-value",
        "value::face_cards_are_worth_10",
        &["K♥ Q♦ J♣", "expected   30", "actual     36"],
    ),
    (
        "blackjack-dealer-hits-17",
        "the_dealers_turn::the_dealer_stands_on_17",
        &[
            "- expected dealer   10♥ 7♥ = 17",
            "+ actual   dealer   10♥ 7♥ 5♠ = 22",
        ],
    ),
    (
        // No listed round has a player hit to 21 while the dealer still has to draw.
        "blackjack-any-21-wins-at-once",
        "random_rounds",
        &[
            "the round: expected push but got player wins",
            "= 21\n",
            "+ actual   dealer",
        ],
    ),
    (
        "blackjack-natural-against-natural-wins",
        "naturals::both_naturals_push",
        &[
            "- expected outcome  push",
            "+ actual   outcome  player wins",
        ],
    ),
    (
        "blackjack-dealer-draws-after-bust",
        "the_players_turn::a_bust_ends_the_round_without_a_dealer_draw",
        &[
            "- expected dealer   10♥ 6♥ = 16",
            "+ actual   dealer   10♥ 6♥ 2♠ = 18",
        ],
    ),
    (
        "blackjack-player-dealt-first",
        "naturals::a_player_natural_wins_at_once",
        &[
            "- expected player   A♠ K♠ = 21",
            "+ actual   player   9♥ 7♣ = 16",
        ],
    ),
    (
        "blackjack-h17-ignored",
        "h17::the_dealer_hits_soft_17_under_h17",
        &[
            "- expected dealer   A♥ 6♥ 4♠ = 21",
            "+ actual   dealer   A♥ 6♥ = 17",
        ],
    ),
    (
        "blackjack-ties-go-to-the-dealer",
        "the_dealers_turn::equal_totals_push",
        &[
            "- expected outcome  push",
            "+ actual   outcome  dealer wins",
        ],
    ),
];

/// Each Poker mutant, the test that catches it, and what its message says.
const POKER_BUGS: &[Caught] = &[
    (
        "poker-wheel-not-a-straight",
        "category::the_wheel_is_a_straight",
        &[
            "A♥ 2♣ 3♦ 4♠ 5♥",
            "expected   straight",
            "actual     high card",
        ],
    ),
    (
        "poker-wheel-ace-high",
        "tiebreak::the_wheels_high_card_is_5",
        &["A♥ 2♣ 3♦ 4♠ 5♥", "expected   [5, 5]", "actual     [5, 14]"],
    ),
    (
        "poker-straight-wraps",
        "category::k_a_2_3_4_does_not_wrap",
        &[
            "K♥ A♣ 2♦ 3♠ 4♥",
            "expected   high card",
            "actual     straight",
        ],
    ),
    (
        "poker-ties-by-category-only",
        "compare::full_house_by_its_triple",
        &[
            "expected   Less",
            "actual     Equal",
            "3♥ 3♣ 3♦ K♠ K♥   full house         7 [3] 13",
            "4♥ 4♣ 4♦ 2♠ 2♥   full house         7 [4] 2",
            "cell 1 of the vectors decides",
        ],
    ),
    (
        "poker-ties-by-highest-card-only",
        "compare::two_pairs_by_the_high_pair",
        &[
            "expected   Greater",
            "actual     Less",
            "K♥ K♣ 2♦ 2♠ 3♥   two pairs          3 [13] 2 3",
            "Q♥ Q♣ J♦ J♠ A♥   two pairs          3 [12] 11 14",
        ],
    ),
    (
        "poker-full-house-by-its-pair",
        "tiebreak::full_house_is_its_triple_then_its_pair",
        &[
            "3♥ 3♣ 3♦ K♠ K♥",
            "expected   [7, 3, 13]",
            "actual     [7, 13, 3]",
        ],
    ),
    (
        "poker-two-pairs-without-the-low-pair",
        "compare::two_pairs_by_the_low_pair",
        &[
            "expected   Greater",
            "actual     Less",
            "two pairs          3 13 [5] 2",
            "two pairs          3 13 [4] 14",
        ],
    ),
    (
        "poker-two-pairs-without-the-kicker",
        "compare::two_pairs_by_the_kicker",
        &[
            "expected   Less",
            "actual     Equal",
            "two pairs          3 9 5 [2]",
            "two pairs          3 9 5 [3]",
            "cell 3 of the vectors decides",
        ],
    ),
    (
        "poker-ranks-not-grouped",
        "tiebreak::two_pairs_high_pair_low_pair_kicker",
        &[
            "5♥ 5♣ 9♦ 9♠ A♥",
            "expected   [3, 9, 5, 14]",
            "actual     [3, 14, 9, 9, 5, 5]",
        ],
    ),
    (
        "poker-straight-flush-is-a-flush",
        "category::royal_flush",
        &[
            "10♠ J♠ Q♠ K♠ A♠",
            "expected   straight flush",
            "actual     flush",
        ],
    ),
];

/// Each five-card draw mutant the built-in spec catches, the test, and what it says.
const DRAW_BUGS: &[Caught] = &[
    (
        "draw-four-discards-accepted",
        "refused_discards::four_positions",
        &[
            "positions: [1, 2, 3, 4]",
            "expected   an error (refused)",
            "actual     K♥ Q♥ J♥ 10♥ 7♣",
        ],
    ),
    (
        "draw-repeated-position-accepted",
        "refused_discards::a_repeated_position",
        &[
            "positions: [2, 2]",
            "expected   an error (refused)",
            "actual     2♣ Q♥ 4♥ 5♠ 7♣",
        ],
    ),
    (
        "draw-position-out-of-range-panics",
        "refused_discards::position_6",
        &[
            "positions: [6]",
            "expected   an error (refused)",
            "actual     panicked at src/lib.rs:",
            "index out of bounds: the len is 5 but the index is 5",
        ],
    ),
    (
        "draw-replacements-in-slot-order",
        "discard_and_draw::discard_three_in_the_order_typed",
        &[
            "positions: [4, 1, 2]",
            "expected   Q♥ J♥ 4♥ K♥ 7♣",
            "actual     K♥ Q♥ 4♥ J♥ 7♣",
        ],
    ),
    (
        "draw-standard-ties",
        "whole_hands::straights_by_the_suit_of_the_top_card",
        &[
            "player  5♣ 6♦ 7♥ 8♠ 9♥  straight",
            "dealer  5♦ 6♣ 7♠ 8♥ 9♣  straight",
            "winner  the player",
            "winner  nobody (a tie)",
        ],
    ),
    (
        "draw-dealer-discards-four",
        "the_dealers_discards",
        &[
            "expected within the rules but got against the rules: 4 positions: at most 3 cards may be discarded",
        ],
    ),
];

/// Each Crazy Eights engine mutant, the test that catches it, and what its message says.
const CRAZY8_BUGS: &[Caught] = &[
    (
        "crazy8-strategy-plays-a-card-not-held",
        "your_strategies",
        &[
            "strategy `cautious`, game 1 of 40",
            "an illegal move: player 0 cheated: played",
            "(a card it does not hold)",
            "turns        1. player 0",
        ],
    ),
    (
        "crazy8-strategy-hangs",
        "your_strategies",
        &[
            "strategy `eager`, game 1 of 40 (seat 0)",
            "its code failed: ShouldDrawCard",
            "no answer within 2000 ms",
        ],
    ),
    (
        "crazy8-declared-suit-ignored",
        "one_game::four_first_legal_players",
        &[
            "1    player 0 plays 8♣, declares diamonds     player 0 plays 8♣, declares diamonds",
            ">2    player 1 plays 6♦                        (game over)",
            "cheater  player 1 cheated: played 6♦ (a card that does not match)",
        ],
    ),
    (
        "crazy8-declared-suit-never-cleared",
        "one_game::four_first_legal_players",
        &[
            "6    player 1 plays 2♥                        player 1 plays 2♥",
            ">7    player 2 plays 8♠, declares diamonds     player 2 plays K♦",
            "expected   scores   [0, 0, 62, 0]",
            "actual     scores   [0, 0, 59, 0]",
        ],
    ),
    (
        "crazy8-discard-pile-not-updated",
        "one_game::four_first_legal_players",
        &[
            "2    player 1 plays 6♦                        player 1 plays 6♦",
            ">3    player 2 plays 4♦                        player 2 plays K♦",
            "4    player 3 plays Q♦                        player 3 plays A♠",
        ],
    ),
    (
        "crazy8-held-check-missing",
        "cheaters::a_card_not_held",
        &[
            "cheater (NotHeld from turn 2)",
            "expected   scores   [0, 0, 0, 0]\n             winner   none\n             cheater  player 1 cheated: played 2♦ (a card it does not hold)",
            "actual     scores   [0, 0, 0, 0]\n             winner   none\n             cheater  player 1 cheated: played 2♦ (a card that does not match)",
        ],
    ),
    (
        "crazy8-already-played-check-missing",
        "cheaters::a_card_already_played",
        &[
            "cheater (AlreadyPlayed from turn 3)",
            "expected   scores   [0, 0, 0, 0]\n             winner   none\n             cheater  player 0 cheated: played 8♣ (a card already played)",
            "actual     scores   [0, 0, 0, 0]\n             winner   none\n             cheater  player 0 cheated: played 8♣ (a card it does not hold)",
        ],
    ),
    (
        // Every turn is a draw, so the logs agree: only the scores tell that the 8♠ went
        // back into the pile and was drawn.
        "crazy8-starter-8-kept",
        "one_game::a_starter_8_is_buried",
        &[
            "9♦ 10♦ 8♠ 5♥ 6♥ 7♥",
            "expected   scores   [110, 150, 143, 155]",
            "actual     scores   [110, 105, 98, 110]",
        ],
    ),
    (
        "crazy8-starter-8-duplicated",
        "one_game::eights_kept_for_last",
        &[
            ">19   player 2 plays 8♠, declares clubs        (game over)",
            "cheater  player 2 cheated: played 8♠ (a card already played)",
        ],
    ),
    (
        "crazy8-same-cards-for-everyone",
        "one_game::four_first_legal_players",
        &[
            ">1    player 0 plays 8♣, declares diamonds     player 0 plays 2♥",
            "2    player 1 plays 6♦                        player 1 plays 2♦",
            "cheater  player 2 cheated: played 2♦ (a card already played)",
        ],
    ),
    (
        "crazy8-dealt-five-at-a-time",
        "one_game::four_first_legal_players",
        &[
            ">1    player 0 plays 8♣, declares diamonds     player 0 draws",
            "2    player 1 plays 6♦                        player 1 draws",
        ],
    ),
    (
        "crazy8-totals-assigned",
        "tournaments::to_200",
        &[
            "expected   totals   [65, 278, 117, 63] after 7 games",
            "actual     totals   [58, 0, 0, 0] after 1000 games",
        ],
    ),
    (
        // The scoring group's winner is player 0, who gets the points either way.
        "crazy8-points-to-the-first-player",
        "one_game::four_first_legal_players",
        &[
            "expected   scores   [0, 0, 62, 0]\n             winner   player 2",
            "actual     scores   [62, 0, 0, 0]\n             winner   player 2",
        ],
    ),
    (
        "crazy8-no-winner-scores-own-hand",
        "scoring::no_winner_when_the_pile_runs_out",
        &[
            "expected   scores   [327, 441, 274, 389]",
            "actual     scores   [150, 36, 203, 88]",
        ],
    ),
    (
        // The cheater picks a card it has not seen; told nothing, it picks one played.
        "crazy8-opponent-actions-never-sent",
        "cheaters::a_cheat_ends_the_tournament",
        &[
            "cheater  player 3 cheated: played 2♥ (a card it does not hold)",
            "cheater  player 3 cheated: played 2♣ (a card already played)",
        ],
    ),
    (
        "crazy8-game-goes-on-with-an-empty-pile",
        "one_game::a_starter_8_is_buried",
        &[
            "3    player 2 draws                           player 2 draws",
            ">4    (game over)                              player 3 plays 5♣",
            "expected   scores   [110, 150, 143, 155]\n             winner   none\n             turns    3",
        ],
    ),
    (
        "crazy8-deck-not-renewed",
        "tournaments::to_200",
        &[
            "expected   totals   [65, 278, 117, 63] after 7 games",
            "actual     totals   [142, 132, 119, 119] after 1000 games",
        ],
    ),
    (
        "crazy8-cheat-does-not-end-the-tournament",
        "cheaters::a_cheat_ends_the_tournament",
        &[
            "expected   totals   [0, 0, 0, 0] after 1 game",
            "actual     totals   [0, 0, 0, 0] after 1000 games",
        ],
    ),
];

/// The mutants and the table name the same submissions, each once.
fn assert_table_matches(mutants: Vec<support::Mutant>, table: &[Caught]) {
    let mut names: Vec<&str> = mutants.iter().map(|m| m.name).collect();
    let mut tabled: Vec<&str> = table.iter().map(|(name, _, _)| *name).collect();
    names.sort_unstable();
    tabled.sort_unstable();
    assert_eq!(names, tabled);
}

/// Grades each mutant of `table` on `assignment` alone and checks that it fails, that its
/// test fails, and that the failure block names the difference and gives the group's hint;
/// reports every mutant that does not, not only the first.
fn assert_each_is_caught(assignment: &str, table: &[Caught], extra: &[&str]) {
    let mut problems = Vec::new();
    for (name, test, says) in table {
        let mut args = vec!["--assignment", assignment];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = check(&support::named(name), &args);
        if code != 1 {
            problems.push(format!(
                "{name} should fail with exit code 1, not {code}:\n{stdout}\n{stderr}"
            ));
            continue;
        }
        let id = format!("{assignment}::{test}");
        if !result_line(&stdout, &id).ends_with("FAILED") {
            problems.push(format!("{name}: {id} did not fail:\n{stdout}"));
            continue;
        }
        let block = failure_of(&stdout, &id);
        for phrase in says.iter().chain(&["hint"]) {
            if !block.contains(phrase) {
                problems.push(format!("{name}: `{phrase}` missing from:\n{block}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_buggy_mutant_is_in_the_table() {
    assert_table_matches(support::buggy(), BUGS);
    assert_table_matches(support::buggy_tableau(), TABLEAU_BUGS);
    assert_table_matches(support::buggy_blackjack(), BLACKJACK_BUGS);
    assert_table_matches(support::buggy_poker(), POKER_BUGS);
    assert_table_matches(support::buggy_draw(), DRAW_BUGS);
    assert_table_matches(support::buggy_crazy8(), CRAZY8_BUGS);
}

#[test]
fn mutants_are_made_of_the_code_before_the_tests() {
    let code = "use x;\n\npub struct Game;\n";
    for rest in [
        "\n#[cfg(test)]\nmod tests {}\n\n/// Play.\npub mod terminal;\n",
        "\n/// Tests.\n#[allow(dead_code)]\n#[cfg(test)]\nmod tests {}\n",
    ] {
        let text = format!("{code}{rest}");
        assert_eq!(
            &text[..support::submission_part_end(&text)],
            format!("{code}\n")
        );
    }
    assert_eq!(support::submission_part_end(code), code.len());
}

#[test]
fn every_buggy_submission_is_caught_by_a_test_that_names_the_difference() {
    assert_each_is_caught("plaisante_hand", BUGS, &["--skip", "every_hand"]);
}

#[test]
fn every_buggy_tableau_is_caught_by_a_test_that_names_the_difference() {
    assert_each_is_caught("tableau", TABLEAU_BUGS, &[]);
}

#[test]
fn every_buggy_blackjack_is_caught_by_a_test_that_names_the_difference() {
    assert_each_is_caught("blackjack", BLACKJACK_BUGS, &[]);
}

#[test]
fn every_buggy_poker_hand_is_caught_by_a_test_that_names_the_difference() {
    assert_each_is_caught("poker", POKER_BUGS, &["--skip", "every_hand"]);
}

#[test]
fn every_buggy_draw_game_is_caught_by_a_test_that_names_the_difference() {
    assert_each_is_caught("draw_poker", DRAW_BUGS, &[]);
}

#[test]
fn every_buggy_crazy8_engine_is_caught_by_a_test_that_names_the_difference() {
    assert_each_is_caught("crazy_eights", CRAZY8_BUGS, &[]);
}

/// Each hostile fixture, the group of tests/specs/hostile.yaml that triggers it, and what
/// the trigger's failure must say.
const HOSTILE: &[(&str, &str, &str)] = &[
    ("hostile-loop", "loop", "no answer within 1500 ms"),
    ("hostile-panic", "panic", "panicked at src/lib.rs:"),
    ("hostile-abort", "abort", "aborted (SIGABRT)"),
    (
        "hostile-exit",
        "exit",
        "exited with status 0 (std::process::exit)",
    ),
    (
        "hostile-stack-overflow",
        "stack_overflow",
        "overflowed its stack",
    ),
];

#[test]
fn hostile_code_fails_its_own_test_and_nothing_else() {
    let spec = repo().join("tests/specs/hostile.yaml");
    for (name, group, says) in HOSTILE {
        let (code, stdout, stderr) = check(
            &support::named(name),
            &["--spec", spec.to_str().unwrap(), "--test-threads", "1"],
        );
        assert_eq!(code, 1, "{name}:\n{stdout}\n{stderr}");
        let trigger = format!("plaisante_hand::{group}::trigger");
        assert!(
            failure_of(&stdout, &trigger).contains(says),
            "{name}:\n{stdout}"
        );
        assert!(
            result_line(&stdout, &format!("plaisante_hand::{group}::after")).ends_with("ok"),
            "{name}"
        );
        let failed = stdout
            .lines()
            .filter(|l| l.starts_with("test ") && l.ends_with("FAILED"))
            .count();
        let bulk_also_fails = matches!(*name, "hostile-loop" | "hostile-exit");
        assert_eq!(
            failed,
            1 + usize::from(bulk_also_fails),
            "{name}:\n{stdout}"
        );
        assert!(
            !stderr.contains("panicked"),
            "the grader panicked:\n{stderr}"
        );
    }
}

#[test]
fn a_crash_in_bulk_says_how_far_it_got() {
    let spec = repo().join("tests/specs/hostile.yaml");
    let (_, stdout, _) = check(
        &support::named("hostile-exit"),
        &["--spec", spec.to_str().unwrap(), "in_bulk"],
    );
    let block = failure_of(&stdout, "plaisante_hand::in_bulk");
    assert!(block.contains("stopped    after "), "{block}");
    assert!(
        block.contains("of 3,000: no answer: the runner process exited with status 0"),
        "{block}"
    );
}

#[test]
fn a_flood_of_output_neither_corrupts_answers_nor_floods_the_report() {
    let spec = repo().join("tests/specs/hostile.yaml");
    let (code, stdout, stderr) = check(
        &support::named("hostile-flood"),
        &["--spec", spec.to_str().unwrap(), "--test-threads", "1"],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.len() < 64 * 1024, "report of {} bytes", stdout.len());
}

#[test]
fn printed_output_is_shown_with_its_failure_and_cut_at_the_cap() {
    let (code, stdout, _) = check(
        &support::named("hostile-chatty"),
        &["has_pair::three_kings"],
    );
    assert_eq!(code, 1, "{stdout}");
    let block = failure_of(
        &stdout,
        "plaisante_hand::has_pair::three_kings_is_not_a_pair",
    );
    assert!(block.contains("stdout of your code"), "{block}");
    assert!(
        block.contains("debug: checking for a pair, round 0"),
        "{block}"
    );
    assert!(block.contains("more bytes not shown"), "{block}");
    assert!(
        block.contains("stderr of your code done checking"),
        "{block}"
    );
    assert!(block.len() < 8 * 1024, "{} bytes", block.len());
}

/// Every text in a JSON value.
fn strings(value: &serde_json::Value) -> Vec<&str> {
    match value {
        serde_json::Value::String(text) => vec![text],
        serde_json::Value::Array(items) => items.iter().flat_map(strings).collect(),
        serde_json::Value::Object(fields) => fields.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// JSON would carry an ESC as `\u001b`, so the parsed texts are what must be free of it.
#[test]
fn escape_sequences_a_submission_prints_are_shown_not_passed_on() {
    let mutant = support::named("hostile-terminal-escape");
    let test = "plaisante_hand::has_pair::three_kings_is_not_a_pair";
    let (code, stdout, stderr) = check(&mutant, &["--format", "gradescope", "has_pair"]);
    assert_eq!(code, 1, "{stderr}");
    let results: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is only JSON");
    for text in strings(&results) {
        assert!(!text.contains(['\u{1b}', '\u{7}']), "{text:?}");
    }
    let failed = results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == test)
        .unwrap();
    assert!(
        failed["output"].as_str().unwrap().contains("␛]0;pwned␇"),
        "the printed text is still shown: {failed}"
    );
    // The terminal report, colorless here, shows it the same way.
    let (_, stdout, _) = check(&mutant, &["has_pair"]);
    assert!(!stdout.contains(['\u{1b}', '\u{7}']), "{stdout:?}");
    assert!(failure_of(&stdout, test).contains("␛]0;pwned␇"), "{stdout}");
}

#[test]
fn a_crate_that_does_not_compile_gets_the_compilers_words_and_zero() {
    let (code, _, stderr) = check(&support::broken_compile().write(), &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("expected `u32`, found `&str`"), "{stderr}");
    assert!(stderr.contains("score: 0"), "{stderr}");
}

#[test]
fn a_crate_without_submission_is_told_what_to_add() {
    let (code, _, stderr) = check(&support::without_submission().write(), &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("no usable `pub fn submission() -> grader_api::Submission`"),
        "{stderr}"
    );
}

#[test]
fn a_crate_pointing_at_another_grader_api_is_built_against_the_graders_own() {
    // Its grader-api path leads to a stand-in of another version, which would say no hello.
    let (code, _, stderr) = check(&fixture("broken-old-api"), &[]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("your submission() registers no assignment"),
        "{stderr}"
    );
}

#[test]
fn a_crate_copied_from_another_machine_builds_whatever_its_api_path_says() {
    let copy = Path::new(env!("CARGO_TARGET_TMPDIR")).join("moved-example-student");
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(copy.join("src")).unwrap();
    let original = fixture("example-student");
    let manifest = std::fs::read_to_string(original.join("Cargo.toml"))
        .unwrap()
        .replace("../../../api", "/home/someone-else/cardgrade/api");
    std::fs::write(copy.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(original.join("src/lib.rs"), copy.join("src/lib.rs")).unwrap();
    let (code, stdout, stderr) = check(&copy, &["--skip", "every_hand"]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stdout.contains("55 passed; 7 failed"), "{stdout}");
}

#[test]
fn a_folder_that_is_not_a_crate_is_a_usage_error() {
    let (code, _, stderr) = check(&repo().join("specs"), &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is not a Rust crate"), "{stderr}");
}

#[test]
fn a_missing_path_is_a_usage_error_not_a_filter() {
    for path in ["/no/such/crate", "./no-such-crate"] {
        let output = grader(&["check", path]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{path}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "{path} does not exist: pass the folder of your crate"
            )),
            "{stderr}"
        );
    }
}

#[test]
fn filters_that_select_no_test_exit_4_naming_them() {
    let reference = repo().join("reference");
    // Listing, grading, and grading for staff (which runs tests without libtest) alike.
    for extra in [
        &["--list", "no_such_test"][..],
        &["no_such_test"],
        &["no_such_test", "--format", "json"],
    ] {
        let (code, stdout, stderr) = check(&reference, extra);
        assert_eq!(code, 4, "{extra:?}: {stdout}\n{stderr}");
        assert!(
            stderr.contains("no test matches `no_such_test`: `grader check --list` lists them"),
            "{stderr}"
        );
        assert!(stdout.is_empty(), "{stdout}");
    }
    let (code, _, stderr) = check(&reference, &["--exact", "has_pair"]);
    assert_eq!(code, 4, "--exact wants a whole name: {stderr}");
    assert!(stderr.contains("no test is named `has_pair`"), "{stderr}");
}

#[test]
fn a_malformed_spec_names_file_line_and_column() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad-spec");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("bad.yaml");
    std::fs::write(
        &spec,
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH, 1X] }\n",
    )
    .unwrap();
    let (code, _, stderr) = check(
        &repo().join("reference"),
        &["--spec", spec.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("bad.yaml:6:"), "{stderr}");
    assert!(stderr.contains("`1X` is not a card"), "{stderr}");
}

#[test]
fn a_written_expectation_the_reference_disagrees_with_is_a_spec_error() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wrong-spec");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("wrong.yaml");
    std::fs::write(
        &spec,
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    check: has_pair\n    cases:\n      - { name: three kings, hand: [KH, KD, KC, 7S, 9H], expect: true }\n",
    )
    .unwrap();
    let (code, _, stderr) = check(
        &repo().join("reference"),
        &["--spec", spec.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("expects true, but the reference answers false"),
        "{stderr}"
    );
    assert!(stderr.contains("line 6"), "{stderr}");
}

#[test]
fn gradescope_results_follow_the_specification() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("results.json");
    let (code, stdout, _) = check(
        &support::named("bug-score-adds"),
        &[
            "--skip",
            "every_hand",
            "--format",
            "gradescope",
            "--output",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1);
    assert!(
        stdout.contains("score\n"),
        "the human report still goes to the terminal:\n{stdout}"
    );
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let tests = results["tests"].as_array().unwrap();
    assert!(tests.len() > 60);
    let scored = tests
        .iter()
        .find(|t| t["name"] == "plaisante_hand::total_value_and_score::k_k_3_7_9_scores_90")
        .unwrap();
    assert_eq!(scored["status"], "failed");
    assert_eq!(scored["score"], 0.0);
    assert!(scored["output"].as_str().unwrap().contains("actual     47"));
    assert_eq!(scored["visibility"], "visible");
    assert_eq!(
        sum_of_tests(&results, "score"),
        hundredths(&results["score"])
    );
    assert!(results["execution_time"].is_u64());
    let hidden = tests
        .iter()
        .find(|t| t["name"] == "plaisante_hand::every_hand")
        .unwrap();
    assert_eq!(hidden["visibility"], "after_due_date");
    assert_eq!(
        hidden["status"], "failed",
        "a test filtered out earns nothing"
    );
}

/// Gradescope's maximum is the sum of the tests' maxima; staff need it the same for every
/// submission of a class, whatever each registers.
#[test]
fn gradescope_max_is_the_specs_not_what_a_submission_registers() {
    // The example student registers plaisante_hand alone; skipping its slow group changes no maximum.
    let (code, stdout, stderr) = check(
        &fixture("example-student"),
        &["--format", "gradescope", "--skip", "every_hand"],
    );
    assert_eq!(code, 1, "{stderr}");
    let results: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is only JSON");
    assert_eq!(
        sum_of_tests(&results, "max_score"),
        60_000,
        "the reference's 600"
    );
    let tests = results["tests"].as_array().unwrap();
    let poker = tests
        .iter()
        .find(|t| t["name"].as_str().unwrap().starts_with("poker::"))
        .expect("poker tests are kept");
    assert_eq!(poker["status"], "failed");
    assert_eq!(poker["score"], 0.0);
    assert_eq!(
        poker["output"],
        "  not registered: add `.poker::<YourHand>()` to your submission()"
    );
}

#[test]
fn a_students_report_grades_what_is_registered_and_names_the_rest() {
    let (code, stdout, stderr) = check(&fixture("example-student"), &["--skip", "every_hand"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(!stdout.contains("test poker::"), "{stdout}");
    assert!(stdout.contains(" / 100\n"), "{stdout}");
    assert!(
        stdout.contains(
            "not graded: tableau, blackjack, poker, draw_poker, crazy_eights (your submission() does not register them; --assignment NAME grades one anyway)"
        ),
        "{stdout}"
    );
    // A filter that only matches what is left out runs nothing: that is said, not passed.
    let (code, _, stderr) = check(&fixture("example-student"), &["poker"]);
    assert_eq!(code, 4, "{stderr}");
    assert!(
        stderr.contains("no test matches `poker` in the assignments your submission() registers"),
        "{stderr}"
    );
    assert!(
        stderr.contains("not graded: tableau, blackjack, poker"),
        "{stderr}"
    );
}

#[test]
fn machine_results_on_several_threads_are_those_of_one() {
    let results = |threads: &str| -> serde_json::Value {
        let (code, stdout, stderr) = check(
            &fixture("example-student"),
            &[
                "--format",
                "json",
                "--test-threads",
                threads,
                "--skip",
                "every_hand",
            ],
        );
        assert_eq!(code, 1, "{stderr}");
        serde_json::from_str(&stdout).expect("stdout is only JSON")
    };
    let (one, two) = (results("1"), results("2"));
    assert_eq!(one["score"], two["score"]);
    let statuses = |results: &serde_json::Value| -> Vec<String> {
        results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|test| format!("{} {}", test["name"], test["status"]))
            .collect()
    };
    assert_eq!(statuses(&one), statuses(&two));
    assert!(
        !statuses(&two)
            .iter()
            .any(|s| s.ends_with("\"not_run\"") && !s.contains("every_hand"))
    );
}

#[test]
fn json_results_go_to_stdout_alone_without_output() {
    let spec = repo().join("tests/specs/hostile.yaml");
    let (code, stdout, _) = check(
        &repo().join("reference"),
        &["--spec", spec.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(code, 0);
    let results: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is only JSON");
    assert_eq!(results["schema"], "cardgrade.results.v1");
    assert_eq!(results["outcome"], "passed");
    assert_eq!(results["score"], results["max_score"]);
}

#[test]
fn a_build_failure_still_writes_results_with_zero() {
    let (code, stdout, _) = check(
        &support::broken_compile().write(),
        &["--format", "gradescope"],
    );
    assert_eq!(code, 3);
    let results: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(results["score"], 0.0);
    assert_eq!(
        sum_of_tests(&results, "max_score"),
        60_000,
        "every test of the specs counts, as for a submission that builds"
    );
    assert!(
        results["output"]
            .as_str()
            .unwrap()
            .contains("expected `u32`")
    );
}

#[test]
fn filters_list_and_exact_work_like_cargo_test() {
    let output = grader(&["check", "--list", "has_pair"]);
    let listed = String::from_utf8_lossy(&output.stdout);
    assert!(
        listed
            .lines()
            .all(|l| l.is_empty() || l.contains("has_pair")),
        "{listed}"
    );
    assert!(listed.contains("plaisante_hand::has_pair::three_kings_is_not_a_pair: test"));
    let (code, stdout, _) = check(
        &support::named("bug-pair-at-least-two"),
        &["--exact", "plaisante_hand::has_pair::pair_of_kings"],
    );
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("1 passed"), "{stdout}");
}

#[test]
fn help_documents_the_exit_codes() {
    let output = grader(&["check", "--help"]);
    let help = String::from_utf8_lossy(&output.stdout);
    for line in [
        "0  every test passed",
        "1  some test failed",
        "2  usage or spec error",
        "3  the submission did not build",
        "4  no test to run",
    ] {
        assert!(help.contains(line), "{help}");
    }
    assert_eq!(grader(&["check", "--bogus"]).status.code(), Some(2));
}
