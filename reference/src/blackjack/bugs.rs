//! Blackjack's bugs: each the reference with a few edits, the bug it is, and the tests that
//! must catch it.

use crate::bugs::{Bug, Library};

const VALUE: &str = "    fn value(&self) -> u32 {\n        self.total_and_drops().0\n    }\n";
const IS_SOFT: &str =
    "    fn is_soft(&self) -> bool {\n        self.total_and_drops().1 > 0\n    }\n";
const DROPS: &str =
    "while total - 10 * drops > 21 && drops < aces {\n            drops += 1;\n        }";
const BUST: &str = "        if hand.value() > 21 {\n            return finish(Outcome::DealerWins, &hand, &dealer);\n        }\n";
const OUTCOME: &str = "        let outcome = match (dealer.value(), hand.value()) {\n";

/// A `value` that sums the cards, aces counting `ace` whatever the total.
fn value_with_aces_at(ace: u32) -> String {
    format!(
        "    fn value(&self) -> u32 {{\n        self.cards\n            .iter()\n            .map(|card| match card.value() {{\n                ACE => {ace},\n                v if v >= JACK => 10,\n                v => u32::from(v),\n            }})\n            .sum()\n    }}\n"
    )
}

pub const LIBRARY: Library = Library {
    assignment: "blackjack",
    uses: &[],
    bugs,
};

/// DOMAIN.md's Blackjack bugs, and others students write, one each.
fn bugs() -> Vec<Bug> {
    vec![
        Bug::new(
            "blackjack-aces-always-one",
            "all aces 1.",
            &[(VALUE, &value_with_aces_at(1))],
        )
        .caught_by("value::a_5_is_16", &["A♥ 5♣", "expected   16", "actual     6"])
        .caught_by("random_hands", &[
            "A♥   (1 card)",
            "expected   11",
            "actual     1",
        ]),
        Bug::new(
            "blackjack-aces-always-eleven",
            "all aces 11.",
            &[(VALUE, &value_with_aces_at(11))],
        )
        .caught_by("value::5_a_a_8_is_15", &["5♣ A♣ A♥ 8♣", "expected   15", "actual     35"])
        .caught_by("random_hands", &[
            "10♣ 6♦ 3♣ A♠ A♥ 4♠ 4♣ 5♦ 7♥ 7♦ 6♥ J♠   (12 cards)",
            "expected   64",
            "actual     84",
        ]),
        Bug::new(
            "blackjack-every-ace-drops-at-once",
            "subtract 10 for every ace at once (A+5+A = 7).",
            &[(
                DROPS,
                "if total > 21 {\n            drops = aces;\n        }",
            )],
        )
        .caught_by("value::a_5_then_a_is_17", &["A♥ 5♣ A♦", "expected   17", "actual     7"])
        .caught_by("random_hands", &[
            "A♠ A♥ 2♠ A♥ 6♥   (5 cards)",
            "expected   21",
            "actual     11",
        ]),
        Bug::new(
            "blackjack-ace-fixed-when-added",
            "an ace fixed at 1 or 11 when added and never revised (3+A+8 = 22).",
            &[
                (
                    "    cards: Vec<Card>,\n}",
                    "    cards: Vec<Card>,\n    total: u32,\n}",
                ),
                (
                    "        self.cards.push(card);\n",
                    "        self.total += match card.value() {\n            ACE if self.total + 11 <= 21 => 11,\n            ACE => 1,\n            v if v >= JACK => 10,\n            v => u32::from(v),\n        };\n        self.cards.push(card);\n",
                ),
                (
                    VALUE,
                    "    fn value(&self) -> u32 {\n        self.total\n    }\n",
                ),
            ],
        )
        .caught_by("value::3_a_8_is_12", &["3♣ A♥ 8♦", "expected   12", "actual     22"])
        .caught_by("random_hands", &[
            "6♦ A♦ 2♥ K♠ Q♠ K♥ 6♠ 7♥ A♥ A♥   (10 cards)",
            "expected   54",
            "actual     64",
        ]),
        Bug::new(
            "blackjack-greedy-per-ace",
            "each ace counts 11 if that fits the rest, judged one ace at a time (A+A+10 = 22).",
            &[(
                VALUE,
                "    fn value(&self) -> u32 {\n        let mut total: u32 = self\n            .cards\n            .iter()\n            .map(|card| match card.value() {\n                ACE => 0,\n                v if v >= JACK => 10,\n                v => u32::from(v),\n            })\n            .sum();\n        for _ in self.cards.iter().filter(|card| card.value() == ACE) {\n            total += if total + 11 <= 21 { 11 } else { 1 };\n        }\n        total\n    }\n",
            )],
        )
        .caught_by("value::a_a_10_is_12", &["A♥ A♦ 10♣", "expected   12", "actual     22"])
        .caught_by("random_hands", &[
            "A♣ K♥ A♦   (3 cards)",
            "expected   12",
            "actual     22",
        ]),
        Bug::new(
            "blackjack-any-ace-is-soft",
            "\"contains an ace\" taken as soft.",
            &[(
                IS_SOFT,
                "    fn is_soft(&self) -> bool {\n        self.cards.iter().any(|card| card.value() == ACE)\n    }\n",
            )],
        )
        .caught_by("is_soft::a_5_9_is_hard", &["is_soft()", "expected   false", "actual     true"])
        .caught_by("random_hands", &[
            "is_soft(): expected false but got true",
            "expected   false",
            "actual     true",
        ]),
        Bug::new(
            "blackjack-face-cards-at-face-value",
            "face cards worth 11, 12, 13.",
            &[("v if v >= JACK => 10,", "v if v >= JACK => u32::from(v),")],
        )
        .caught_by("value::face_cards_are_worth_10", &["K♥ Q♦ J♣", "expected   30", "actual     36"])
        .caught_by("random_hands", &[
            "8♦ J♥ 9♠ 7♣   (4 cards)",
            "expected   34",
            "actual     35",
        ]),
        Bug::new(
            "blackjack-dealer-hits-17",
            "the dealer stops at > 17 instead of >= 17, so hits every 17.",
            &[("dealer.value() < 17", "dealer.value() <= 17")],
        )
        .caught_by("the_dealers_turn::the_dealer_stands_on_17", &[
            "- expected dealer   10♥ 7♥ = 17",
            "+ actual   dealer   10♥ 7♥ 5♠ = 22",
        ])
        .caught_by("random_rounds", &[
            "- expected dealer   4♥ K♣ 3♦ = 17",
            "+ actual   dealer   4♥ K♣ 3♦ J♣ = 27",
        ]),
        Bug::new(
            "blackjack-any-21-wins-at-once",
            "any 21 taken as a natural: a player who hits to 21 wins before the dealer plays.",
            &[(
                BUST,
                &format!(
                    "{BUST}        if hand.value() == 21 {{\n            return finish(Outcome::PlayerWins, &hand, &dealer);\n        }}\n"
                ),
            )],
        )
        .caught_by("random_rounds", &[
            "the round: expected push but got player wins",
            "= 21\n",
            "+ actual   dealer",
        ])
        .caught_by("hitting_to_21::a_three_card_21_ties_the_dealers_21", &[
            "player   5♦ 6♣ K♠ = 21",
            "+ actual   outcome  player wins",
            "+ actual   dealer   10♥ 6♥ = 16",
        ]),
        Bug::new(
            "blackjack-natural-against-natural-wins",
            "natural against natural scored as a player win.",
            &[(
                "(true, true) => return finish(Outcome::Push, &hand, &dealer),",
                "(true, true) => return finish(Outcome::PlayerWins, &hand, &dealer),",
            )],
        )
        .caught_by("naturals::both_naturals_push", &[
            "- expected outcome  push",
            "+ actual   outcome  player wins",
        ])
        .caught_by("random_rounds", &[
            "dealer   Q♦ A♠ = 21",
            "- expected outcome  push",
            "+ actual   outcome  player wins",
        ]),
        Bug::new(
            "blackjack-dealer-draws-after-bust",
            "the dealer draws after a player bust (the bust still loses).",
            &[(BUST, ""), (OUTCOME, &format!("{BUST}{OUTCOME}"))],
        )
        .caught_by("the_players_turn::a_bust_ends_the_round_without_a_dealer_draw", &[
            "- expected dealer   10♥ 6♥ = 16",
            "+ actual   dealer   10♥ 6♥ 2♠ = 18",
        ])
        .caught_by("random_rounds", &[
            "player   3♠ 8♦ 2♣ K♦ = 23",
            "- expected dealer   6♠ 4♠ = 10",
            "+ actual   dealer   6♠ 4♠ 6♥ J♠ = 26",
        ]),
        Bug::new(
            "blackjack-player-dealt-first",
            "deal order player first: player, dealer, player, dealer.",
            &[(
                "        dealer.add(deck.deal());\n        hand.add(deck.deal());\n        dealer.add(deck.deal());\n        hand.add(deck.deal());\n",
                "        hand.add(deck.deal());\n        dealer.add(deck.deal());\n        hand.add(deck.deal());\n        dealer.add(deck.deal());\n",
            )],
        )
        .caught_by("naturals::a_player_natural_wins_at_once", &[
            "- expected player   A♠ K♠ = 21",
            "+ actual   player   9♥ 7♣ = 16",
        ])
        .caught_by("random_rounds", &[
            "- expected player   7♥ 2♣ 4♥ K♦ = 23",
            "+ actual   player   9♦ K♥ = 19",
            "+ actual   dealer   7♥ 2♣ 4♥ K♦ = 23",
        ]),
        Bug::new(
            "blackjack-h17-ignored",
            "the H17 rule ignored: the dealer stands on every 17.",
            &[(
                "\n            || (rules.dealer_hits_soft_17 && dealer.value() == 17 && dealer.is_soft())",
                "",
            )],
        )
        .caught_by("h17::the_dealer_hits_soft_17_under_h17", &[
            "- expected dealer   A♥ 6♥ 4♠ = 21",
            "+ actual   dealer   A♥ 6♥ = 17",
        ])
        .caught_by("h17::the_dealer_hits_a_soft_17_drawn_to_under_h17", &[
            "- expected dealer   2♥ 4♥ A♠ 4♠ = 21",
            "+ actual   dealer   2♥ 4♥ A♠ = 17",
        ]),
        Bug::new(
            "blackjack-ties-go-to-the-dealer",
            "equal totals scored as a dealer win instead of a push.",
            &[("            (d, p) if p == d => Outcome::Push,\n", "")],
        )
        .caught_by("the_dealers_turn::equal_totals_push", &[
            "- expected outcome  push",
            "+ actual   outcome  dealer wins",
        ])
        .caught_by("random_rounds", &[
            "dealer   9♣ K♦ = 19",
            "- expected outcome  push",
            "+ actual   outcome  dealer wins",
        ]),
    ]
}
