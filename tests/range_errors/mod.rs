//! Specs that break one range each, with where and what the loader says of it: the tests of
//! the loader and of the schema both refuse every one.

/// Each spec, and the start of the one error it gets: `line:column: message`, the place
/// being the number itself.
pub const RANGE_ERRORS: &[(&str, &str)] = &[
    (
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: -5\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n",
        "4:13: points: -5 is outside its range, 0 to 1,000",
    ),
    (
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1e300\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n",
        "4:13: points: 1e300 is outside its range, 0 to 1,000",
    ),
    (
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    timeout_ms: 0\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n",
        "5:17: timeout_ms: 0 is outside its range, 1 to 600,000",
    ),
    (
        "assignment: plaisante_hand\ndefaults: { timeout_ms: 0 }\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n",
        "2:25: defaults.timeout_ms: 0 is outside its range, 1 to 600,000",
    ),
    (
        "assignment: plaisante_hand\ndefaults:\n  build_timeout_s: 99999\ngroups:\n  - name: g\n    points: 1\n    check: has_pair\n    cases:\n      - { name: c, hand: [KH] }\n",
        "3:20: defaults.build_timeout_s: 99999 is outside its range, 1 to 3,600",
    ),
    (
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    checks: [has_pair]\n    generate: { count: 0, seed: 1 }\n",
        "6:24: generate.count: 0 is outside its range, 1 to 1,000,000",
    ),
    (
        "assignment: tableau\ngroups:\n  - name: g\n    points: 1\n    generate:\n      count: 10000000000000\n      seed: 1\n",
        "6:14: generate.count: 10000000000000 is outside its range, 1 to 1,000,000",
    ),
    (
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    checks: [has_pair]\n    generate: { count: 10, seed: 1, hand_size: 6 }\n",
        "6:48: generate.hand_size: 6 is outside its range, 1 to 5",
    ),
    (
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    checks: [has_pair]\n    generate: { count: 10, seed: 1, min_hand_size: 0 }\n",
        "6:52: generate.min_hand_size: 0 is outside its range, 1 to 5",
    ),
    (
        "assignment: plaisante_hand\ngroups:\n  - name: g\n    points: 1\n    checks: [has_pair]\n    exhaustive: { hand_size: 0 }\n",
        "6:30: exhaustive.hand_size: 0 is outside its range, 1 to 5",
    ),
    (
        "assignment: poker\ngroups:\n  - name: g\n    points: 1\n    checks: [category]\n    exhaustive: { hand_size: 4 }\n",
        "6:30: exhaustive.hand_size: 4 is refused: this takes only 5",
    ),
    (
        "assignment: draw_poker\ngroups:\n  - name: g\n    points: 1\n    checks: [dealer_discards]\n    generate: { count: 10, seed: 1, hand_size: 255 }\n",
        "6:48: generate.hand_size: 255 is refused: this takes only 5",
    ),
    (
        "assignment: blackjack\ngroups:\n  - name: g\n    points: 1\n    cases:\n      - name: c\n        seed: 1\n        player: hit below 17\n        rounds: 1000000000\n",
        "9:17: rounds: 1000000000 is outside its range, 1 to 10,000",
    ),
    (
        "assignment: blackjack\ngroups:\n  - name: g\n    points: 1\n    check: value\n    cases:\n      - name: c\n        hand: [KH]\n        weight: 0\n",
        "9:17: weight: 0 is outside its range, 1 to 1,000",
    ),
    (
        "assignment: crazy_eights\ngroups:\n  - name: g\n    points: 1\n    strategies: { games: 1000000000, seed: 1, opponents: [first legal, first legal, first legal] }\n",
        "5:26: strategies.games: 1000000000 is outside its range, 1 to 10,000",
    ),
    (
        "assignment: crazy_eights\ngroups:\n  - name: g\n    points: 1\n    cases:\n      - name: c\n        seed: 1\n        players: [first legal, first legal, first legal, first legal]\n        target: 0\n",
        "9:17: target: 0 is outside its range, 1 to 10,000",
    ),
    (
        "assignment: crazy_eights\ngroups:\n  - name: g\n    points: 1\n    generate: { count: 2, seed: 1, deck_size: 20, players: [first legal, first legal, first legal, first legal] }\n",
        "5:47: generate.deck_size: 20 is outside its range, 21 to 52",
    ),
];
