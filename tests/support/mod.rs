//! Buggy and hostile submissions made from the reference by small edits, one mistake
//! each, so they stay in step with the reference instead of being copies of it.

use std::path::{Path, PathBuf};

/// Which reference module a mutant is made from.
#[derive(Clone, Copy)]
pub enum Module {
    Plaisante,
    Tableau,
    Blackjack,
    Poker,
    /// The draw game, with the reference poker hand as `pub mod poker` beside it.
    Draw,
    Crazy8,
}

impl Module {
    fn file(self) -> &'static str {
        match self {
            Module::Plaisante => "reference/src/plaisante.rs",
            Module::Tableau => "reference/src/tableau.rs",
            Module::Blackjack => "reference/src/blackjack.rs",
            Module::Poker => "reference/src/poker.rs",
            Module::Draw => "reference/src/draw.rs",
            Module::Crazy8 => "reference/src/crazy8.rs",
        }
    }

    /// Other reference modules the crate holds as inline `pub mod`s after this one's text;
    /// edits may change them too.
    fn companions(self) -> &'static [(&'static str, Module)] {
        match self {
            Module::Draw => &[("poker", Module::Poker)],
            _ => &[],
        }
    }

    /// The module's reference text without its tests or anything else after them.
    fn reference_text(self) -> String {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(repo.join(self.file())).unwrap();
        text[..submission_part_end(&text)].to_string()
    }

    /// The reference text a mutant is made from: this module then its companions.
    fn source(self) -> String {
        let mut source = self.reference_text();
        for (name, module) in self.companions() {
            source.push_str(&format!(
                "\npub mod {name} {{\n{}}}\n",
                module.reference_text()
            ));
        }
        source
    }

    fn registration(self) -> &'static str {
        match self {
            Module::Plaisante => "plaisante_hand::<Hand>()",
            Module::Tableau => "tableau::<Table>()",
            Module::Blackjack => "blackjack::<Hand, Game>()",
            Module::Poker => "poker::<Hand>()",
            Module::Draw => "draw_poker::<Game, poker::Hand>()",
            Module::Crazy8 => {
                "crazy_eights::<Engine>()\n        .crazy_eights_player::<Eager>(\"eager\")\n        .crazy_eights_player::<Cautious>(\"cautious\")"
            }
        }
    }
}

pub struct Mutant {
    pub name: &'static str,
    pub module: Module,
    /// What is wrong with it, in the words of DOMAIN.md's list of student bugs.
    pub bug: &'static str,
    /// Text of the reference's hand and what replaces it; each must occur exactly once.
    pub edits: Vec<(&'static str, String)>,
    /// Leave out `pub fn submission()`.
    pub without_submission: bool,
}

impl Mutant {
    fn new(name: &'static str, bug: &'static str, edits: &[(&'static str, &str)]) -> Mutant {
        Mutant::of(Module::Plaisante, name, bug, edits)
    }

    /// A mutant of the reference's `module`.
    pub fn of(
        module: Module,
        name: &'static str,
        bug: &'static str,
        edits: &[(&'static str, &str)],
    ) -> Mutant {
        Mutant {
            module,
            name,
            bug,
            edits: edits
                .iter()
                .map(|(from, to)| (*from, to.to_string()))
                .collect(),
            without_submission: false,
        }
    }

    /// Writes the crate under the test target dir and returns its folder.
    pub fn write(&self) -> PathBuf {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut source = self.module.source();
        for (from, to) in &self.edits {
            assert_eq!(
                source.matches(from).count(),
                1,
                "{}: `{from}` must occur once",
                self.name
            );
            source = source.replace(from, to);
        }
        let registry = if self.without_submission {
            ""
        } else {
            &format!(
                "\npub fn submission() -> grader_api::Submission {{\n    grader_api::Submission::new().{}\n}}\n",
                self.module.registration()
            )
        };
        let lib = format!("//! Bug: {}\n{source}{registry}", self.bug);
        let manifest = format!(
            "[package]\nname = \"{}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\ngrader-api = {{ path = {:?} }}\n\n[workspace]\n",
            self.name,
            repo.join("api")
        );
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("mutants")
            .join(self.name);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        write_if_changed(&dir.join("Cargo.toml"), &manifest);
        write_if_changed(&dir.join("src/lib.rs"), &lib);
        dir
    }
}

/// Where a reference module's own code ends: at its tests, or at a `terminal` module (the
/// `grader play` front end, not part of what a student writes) if that comes first, along
/// with the doc comments and attributes just above it.
pub fn submission_part_end(text: &str) -> usize {
    let Some(marker) = ["#[cfg(test)]", "mod terminal"]
        .iter()
        .filter_map(|marker| text.find(marker))
        .min()
    else {
        return text.len();
    };
    let mut end = text[..marker].rfind('\n').map_or(0, |n| n + 1);
    while let Some(start) = text[..end.saturating_sub(1)].rfind('\n').map(|n| n + 1) {
        let line = text[start..end].trim();
        if !(line.starts_with("///") || line.starts_with("#[")) {
            break;
        }
        end = start;
    }
    end
}

/// Cargo rebuilds what it sees rewritten; unchanged mutants stay compiled between runs.
fn write_if_changed(path: &Path, contents: &str) {
    if std::fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return;
    }
    std::fs::write(path, contents).unwrap();
}

const HAS_PAIR: &str = "fn has_pair(&self) -> bool {\n        self.has_value_count(2)";
const HAS_THREE: &str = "fn has_three_of_a_kind(&self) -> bool {\n        self.has_value_count(3)";
const NO_REPEATS: &str = "\n            && self.count_values().iter().all(|&count| count <= 1)";
const COUNTING: &str = "let mut counts = vec![0; COUNTS_LEN];";
const BEFORE_STRAIGHT: &str = "    fn has_straight(&self) -> bool {\n";

/// An `evaluate` override checking in the given order, then the reference's `has_straight`.
fn evaluate_in(order: &[(&str, &str)]) -> String {
    let mut body = String::from("    fn evaluate(&self) -> grader_api::HandName {\n");
    for (check, name) in order {
        body.push_str(&format!("        if self.{check}() {{\n            return grader_api::HandName::{name};\n        }}\n"));
    }
    body.push_str("        grader_api::HandName::HighCard\n    }\n\n");
    body + BEFORE_STRAIGHT
}

/// The first card is `value` of `suit`: how hostile mutants pick the hands they attack.
fn first_is(value: u8, suit: &str) -> String {
    format!(
        "self.cards.first().is_some_and(|c| c.value() == {value} && c.suit() == grader_api::Suit::{suit})"
    )
}

pub fn buggy() -> Vec<Mutant> {
    let seed_order = [
        ("has_four_of_a_kind", "FourOfAKind"),
        ("has_full_house", "FullHouse"),
        ("has_flush", "Flush"),
        ("has_straight", "Straight"),
        ("has_three_of_a_kind", "ThreeOfAKind"),
        ("has_two_pair", "TwoPair"),
        ("has_pair", "Pair"),
    ];
    let swapped = |a: usize, b: usize| {
        let mut order = seed_order;
        order.swap(a, b);
        evaluate_in(&order)
    };
    vec![
        Mutant::new(
            "bug-pair-at-least-two",
            "has_pair as count >= 2.",
            &[(
                HAS_PAIR,
                "fn has_pair(&self) -> bool {\n        self.count_values().iter().any(|&count| count >= 2)",
            )],
        ),
        Mutant::new(
            "bug-three-at-least-three",
            "has_three_of_a_kind as count >= 3.",
            &[(
                HAS_THREE,
                "fn has_three_of_a_kind(&self) -> bool {\n        self.count_values().iter().any(|&count| count >= 3)",
            )],
        ),
        Mutant::new(
            "bug-full-house-loose-pair",
            "full house as three && some count >= 2.",
            &[(
                "self.has_three_of_a_kind() && self.has_pair()",
                "self.has_three_of_a_kind() && self.count_values().iter().any(|&count| count >= 2)",
            )],
        ),
        Mutant::new(
            "bug-two-pair-counts-at-least-two",
            "two pair counts values with count >= 2.",
            &[(
                ".filter(|&&count| count == 2)",
                ".filter(|&&count| count >= 2)",
            )],
        ),
        Mutant::new(
            "bug-straight-repeats",
            "straight without the no-repeats check.",
            &[(NO_REPEATS, "")],
        ),
        Mutant::new(
            "bug-straight-ace-low",
            "straight accepting A-2-3-4-5.",
            &[(
                NO_REPEATS,
                "\n            && self.count_values().iter().all(|&count| count <= 1)\n            || self.cards.len() == 5 && [14, 2, 3, 4, 5].iter().all(|&v| self.count_values()[v] == 1)",
            )],
        ),
        Mutant::new(
            "bug-evaluate-order",
            "evaluate checks three of a kind before full house.",
            &[(BEFORE_STRAIGHT, &swapped(1, 4))],
        ),
        Mutant::new(
            "bug-straight-before-flush",
            "evaluate checks straight before flush.",
            &[(BEFORE_STRAIGHT, &swapped(2, 3))],
        ),
        Mutant::new(
            "bug-counts-fourteen",
            "a counts array of 14 cells, aces left out.",
            &[
                (COUNTING, "let mut counts = vec![0; COUNTS_LEN - 1];"),
                (
                    "counts[usize::from(card.value())] += 1;",
                    "if card.value() < 14 {\n                counts[usize::from(card.value())] += 1;\n            }",
                ),
            ],
        ),
        Mutant::new(
            "bug-counts-never-reset",
            "counts kept in a field and never reset.",
            &[
                (
                    "    cards: Vec<Card>,\n}",
                    "    cards: Vec<Card>,\n    counts: std::cell::RefCell<Vec<u32>>,\n}",
                ),
                (
                    "Hand { cards }",
                    "Hand {\n            cards,\n            counts: std::cell::RefCell::new(vec![0; COUNTS_LEN]),\n        }",
                ),
                (COUNTING, "let mut counts = self.counts.borrow_mut();"),
                (
                    "        }\n        counts\n",
                    "        }\n        counts.clone()\n",
                ),
            ],
        ),
        Mutant::new(
            "bug-flush-four-cards",
            "flush true with fewer than 5 cards.",
            &[(
                "        self.cards.len() == 5\n            && self\n",
                "        !self.cards.is_empty()\n            && self\n",
            )],
        ),
        Mutant::new(
            "bug-score-adds",
            "score adds the multiplier instead of multiplying.",
            &[(
                BEFORE_STRAIGHT,
                &format!(
                    "    fn score(&self) -> u32 {{\n        self.total_value() + self.base_mult()\n    }}\n\n{BEFORE_STRAIGHT}"
                ),
            )],
        ),
    ]
}

pub fn hostile() -> Vec<Mutant> {
    vec![
        Mutant::new(
            "hostile-loop",
            "has_flush loops forever when the first card is a heart.",
            &[(
                "    fn has_flush(&self) -> bool {\n",
                "    fn has_flush(&self) -> bool {\n        while self.cards.first().is_some_and(|c| c.suit() == grader_api::Suit::Hearts) {\n            std::hint::spin_loop();\n        }\n",
            )],
        ),
        Mutant::new(
            "hostile-panic",
            "has_two_pair panics on four cards.",
            &[(
                "    fn has_two_pair(&self) -> bool {\n",
                "    fn has_two_pair(&self) -> bool {\n        if self.cards.len() == 4 {\n            panic!(\"two pair is hard\");\n        }\n",
            )],
        ),
        Mutant::new(
            "hostile-abort",
            "has_full_house aborts when the first card is K♠.",
            &[(
                "    fn has_full_house(&self) -> bool {\n",
                &format!(
                    "    fn has_full_house(&self) -> bool {{\n        if {} {{\n            std::process::abort();\n        }}\n",
                    first_is(13, "Spades")
                ),
            )],
        ),
        Mutant::new(
            "hostile-exit",
            "has_four_of_a_kind calls process::exit(0) when the first card is A♣.",
            &[(
                "    fn has_four_of_a_kind(&self) -> bool {\n",
                &format!(
                    "    fn has_four_of_a_kind(&self) -> bool {{\n        if {} {{\n            std::process::exit(0);\n        }}\n",
                    first_is(14, "Clubs")
                ),
            )],
        ),
        Mutant::new(
            "hostile-flood",
            "count_values prints 10 MB when the first card is 2♦, then answers right.",
            &[(
                COUNTING,
                &format!(
                    "if {} {{\n            for _ in 0..10_000 {{\n                println!(\"{{}}\", \"x\".repeat(1000));\n            }}\n        }}\n        {COUNTING}",
                    first_is(2, "Diamonds")
                ),
            )],
        ),
        Mutant::new(
            "hostile-stack-overflow",
            "has_straight recurses without end on a one-suit hand.",
            &[(
                BEFORE_STRAIGHT,
                "    fn has_straight(&self) -> bool {\n        fn dive(depth: u64) -> u64 {\n            let pad = std::hint::black_box([depth; 512]);\n            dive(depth + 1) + pad[0]\n        }\n        if self.has_flush() {\n            return dive(0) > 0;\n        }\n",
            )],
        ),
        Mutant::new(
            "hostile-chatty",
            "has_pair as count >= 2, printing a debug line 10,000 times a call.",
            &[(
                HAS_PAIR,
                "fn has_pair(&self) -> bool {\n        for round in 0..10_000 {\n            println!(\"debug: checking for a pair, round {round}\");\n        }\n        eprint!(\"done checking\");\n        self.count_values().iter().any(|&count| count >= 2)",
            )],
        ),
        Mutant::new(
            "hostile-terminal-escape",
            "has_pair as count >= 2, printing an escape sequence that retitles a terminal, and a bell.",
            &[(
                HAS_PAIR,
                "fn has_pair(&self) -> bool {\n        print!(\"\\x1b]0;pwned\\x07\");\n        self.count_values().iter().any(|&count| count >= 2)",
            )],
        ),
    ]
}

pub fn broken_compile() -> Mutant {
    Mutant::new(
        "broken-compile",
        "a type error.",
        &[(
            HAS_PAIR,
            "fn has_pair(&self) -> bool {\n        let _x: u32 = \"five\";\n        self.has_value_count(2)",
        )],
    )
}

pub fn without_submission() -> Mutant {
    Mutant {
        without_submission: true,
        ..Mutant::new("broken-no-submission", "no submission() function.", &[])
    }
}

fn tableau(name: &'static str, bug: &'static str, edits: &[(&'static str, &str)]) -> Mutant {
    Mutant::of(Module::Tableau, name, bug, edits)
}

const TOGGLE: &str = "    fn toggle_selection(&mut self, card: Card) {\n";
const DESELECT: &str = "self.selected.remove(position);";
const PLAY_LOOP: &str = "for card in self.selected.drain(..) {";

/// DOMAIN.md's Tableau bugs, and others students write, one each.
pub fn buggy_tableau() -> Vec<Mutant> {
    vec![
        tableau(
            "tableau-sixth-card-selectable",
            "a sixth card selectable: the limit checked with <=.",
            &[(
                "self.selected.len() < MAX_SELECTED",
                "self.selected.len() <= MAX_SELECTED",
            )],
        ),
        tableau(
            "tableau-deselect-keeps-card",
            "deselect not removing: clicking a selected card leaves it selected.",
            &[(DESELECT, "let _ = position;")],
        ),
        tableau(
            "tableau-unheld-card-selectable",
            "a card not held becoming selected.",
            &[(" && self.held.contains(&card)", "")],
        ),
        tableau(
            "tableau-remove-while-iterating",
            "removing from the selection while walking it by index: every other card is skipped.",
            &[(
                "        for card in self.selected.drain(..) {\n            self.held.retain(|&held| held != card);\n            self.play_area.push(card);\n        }\n",
                "        let mut index = 0;\n        while index < self.selected.len() {\n            let card = self.selected.remove(index);\n            self.held.retain(|&held| held != card);\n            self.play_area.push(card);\n            index += 1;\n        }\n",
            )],
        ),
        tableau(
            "tableau-selection-kept-after-play",
            "selection not cleared after play.",
            &[(PLAY_LOOP, "for &card in &self.selected {")],
        ),
        tableau(
            "tableau-play-area-reversed",
            "cards played by popping the selection: the play area gets them in reverse order.",
            &[(PLAY_LOOP, "while let Some(card) = self.selected.pop() {")],
        ),
        tableau(
            "tableau-played-cards-stay-held",
            "played cards not removed from held.",
            &[("            self.held.retain(|&held| held != card);\n", "")],
        ),
        tableau(
            "tableau-deselect-removes-from-held",
            "deselecting also removes the card from held.",
            &[(
                DESELECT,
                "self.selected.remove(position);\n            self.held.retain(|&held| held != card);",
            )],
        ),
        tableau(
            "tableau-play-replaces-play-area",
            "each play replaces the play area instead of adding to its end.",
            &[(
                PLAY_LOOP,
                "self.play_area.clear();\n        for card in self.selected.drain(..) {",
            )],
        ),
        tableau(
            "tableau-full-selection-refuses-deselect",
            "the limit checked before deselecting: a card of a full selection cannot be deselected.",
            &[(
                TOGGLE,
                "    fn toggle_selection(&mut self, card: Card) {\n        if self.selected.len() >= MAX_SELECTED {\n            return;\n        }\n",
            )],
        ),
    ]
}

fn blackjack(name: &'static str, bug: &'static str, edits: &[(&'static str, &str)]) -> Mutant {
    Mutant::of(Module::Blackjack, name, bug, edits)
}

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

/// DOMAIN.md's Blackjack bugs, and others students write, one each.
pub fn buggy_blackjack() -> Vec<Mutant> {
    vec![
        blackjack(
            "blackjack-aces-always-one",
            "all aces 1.",
            &[(VALUE, &value_with_aces_at(1))],
        ),
        blackjack(
            "blackjack-aces-always-eleven",
            "all aces 11.",
            &[(VALUE, &value_with_aces_at(11))],
        ),
        blackjack(
            "blackjack-every-ace-drops-at-once",
            "subtract 10 for every ace at once (A+5+A = 7).",
            &[(
                DROPS,
                "if total > 21 {\n            drops = aces;\n        }",
            )],
        ),
        blackjack(
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
        ),
        blackjack(
            "blackjack-greedy-per-ace",
            "each ace counts 11 if that fits the rest, judged one ace at a time (A+A+10 = 22).",
            &[(
                VALUE,
                "    fn value(&self) -> u32 {\n        let mut total: u32 = self\n            .cards\n            .iter()\n            .map(|card| match card.value() {\n                ACE => 0,\n                v if v >= JACK => 10,\n                v => u32::from(v),\n            })\n            .sum();\n        for _ in self.cards.iter().filter(|card| card.value() == ACE) {\n            total += if total + 11 <= 21 { 11 } else { 1 };\n        }\n        total\n    }\n",
            )],
        ),
        blackjack(
            "blackjack-any-ace-is-soft",
            "\"contains an ace\" taken as soft.",
            &[(
                IS_SOFT,
                "    fn is_soft(&self) -> bool {\n        self.cards.iter().any(|card| card.value() == ACE)\n    }\n",
            )],
        ),
        blackjack(
            "blackjack-face-cards-at-face-value",
            "face cards worth 11, 12, 13.",
            &[("v if v >= JACK => 10,", "v if v >= JACK => u32::from(v),")],
        ),
        blackjack(
            "blackjack-dealer-hits-17",
            "the dealer stops at > 17 instead of >= 17, so hits every 17.",
            &[("dealer.value() < 17", "dealer.value() <= 17")],
        ),
        blackjack(
            "blackjack-any-21-wins-at-once",
            "any 21 taken as a natural: a player who hits to 21 wins before the dealer plays.",
            &[(
                BUST,
                &format!(
                    "{BUST}        if hand.value() == 21 {{\n            return finish(Outcome::PlayerWins, &hand, &dealer);\n        }}\n"
                ),
            )],
        ),
        blackjack(
            "blackjack-natural-against-natural-wins",
            "natural against natural scored as a player win.",
            &[(
                "(true, true) => return finish(Outcome::Push, &hand, &dealer),",
                "(true, true) => return finish(Outcome::PlayerWins, &hand, &dealer),",
            )],
        ),
        blackjack(
            "blackjack-dealer-draws-after-bust",
            "the dealer draws after a player bust (the bust still loses).",
            &[(BUST, ""), (OUTCOME, &format!("{BUST}{OUTCOME}"))],
        ),
        blackjack(
            "blackjack-player-dealt-first",
            "deal order player first: player, dealer, player, dealer.",
            &[(
                "        dealer.add(deck.deal());\n        hand.add(deck.deal());\n        dealer.add(deck.deal());\n        hand.add(deck.deal());\n",
                "        hand.add(deck.deal());\n        dealer.add(deck.deal());\n        hand.add(deck.deal());\n        dealer.add(deck.deal());\n",
            )],
        ),
        blackjack(
            "blackjack-h17-ignored",
            "the H17 rule ignored: the dealer stands on every 17.",
            &[(
                "\n            || (rules.dealer_hits_soft_17 && dealer.value() == 17 && dealer.is_soft())",
                "",
            )],
        ),
        blackjack(
            "blackjack-ties-go-to-the-dealer",
            "equal totals scored as a dealer win instead of a push.",
            &[("            (d, p) if p == d => Outcome::Push,\n", "")],
        ),
    ]
}

fn poker(name: &'static str, bug: &'static str, edits: &[(&'static str, &str)]) -> Mutant {
    Mutant::of(Module::Poker, name, bug, edits)
}

const WHEEL: &str = "    } else if wheel {\n        Some(5)\n";
const WHEEL_TEST: &str =
    "rules.ace_low_straight && five_distinct && [14, 2, 3, 4, 5].iter().all(|&r| counts[r] == 1)";
const EVALUATED: &str = "let (category, tiebreak) = evaluate(&cards, rules);";
const RANKS: &str = "let ranks: Vec<u32> = groups.iter().map(|g| g.1).collect();";

/// `Hand::new` keeping the reference's category but a value vector of `vector`, an
/// expression over `category` and `cards`.
fn tiebreak_of(vector: &str) -> String {
    format!(
        "let (category, _) = evaluate(&cards, rules);\n        let tiebreak: Vec<u32> = {vector};"
    )
}

/// The grouped ranks, then `change` applied to the mutable `ranks` for `category`.
fn ranks_changed(category: &str, change: &str) -> String {
    format!(
        "let mut ranks: Vec<u32> = groups.iter().map(|g| g.1).collect();\n    if category == Category::{category} {{\n        {change}\n    }}"
    )
}

/// DOMAIN.md's Poker bugs, one each.
pub fn buggy_poker() -> Vec<Mutant> {
    vec![
        poker(
            "poker-wheel-not-a-straight",
            "wheel not recognised: A-2-3-4-5 is ace high.",
            &[(WHEEL, ""), ("let wheel =", "let _wheel =")],
        ),
        poker(
            "poker-wheel-ace-high",
            "wheel ranked as ace-high: its high card 14 instead of 5.",
            &[(WHEEL, "    } else if wheel {\n        Some(14)\n")],
        ),
        poker(
            "poker-straight-wraps",
            "K-A-2-3-4 accepted by modulo arithmetic: five ranks in a row modulo 13.",
            &[(
                WHEEL_TEST,
                "rules.ace_low_straight\n        && five_distinct\n        && (0..13u32).any(|start| (0..5).all(|k| counts[2 + ((start + k) % 13) as usize] == 1))",
            )],
        ),
        poker(
            "poker-ties-by-category-only",
            "ties decided by category only: the value vector is just the category.",
            &[(EVALUATED, &tiebreak_of("vec![category.number()]"))],
        ),
        poker(
            "poker-ties-by-highest-card-only",
            "ties decided by the highest card only.",
            &[(
                EVALUATED,
                &tiebreak_of(
                    "vec![\n            category.number(),\n            cards.iter().map(|c| u32::from(c.value())).max().unwrap_or(0),\n        ]",
                ),
            )],
        ),
        poker(
            "poker-full-house-by-its-pair",
            "full house compared by its pair before its triple.",
            &[(RANKS, &ranks_changed("FullHouse", "ranks.reverse();"))],
        ),
        poker(
            "poker-two-pairs-without-the-low-pair",
            "two pair ignoring the second pair: the high pair, then the kicker.",
            &[(RANKS, &ranks_changed("TwoPair", "ranks.remove(1);"))],
        ),
        poker(
            "poker-two-pairs-without-the-kicker",
            "two pair ignoring the kicker: both pairs only.",
            &[(RANKS, &ranks_changed("TwoPair", "ranks.truncate(2);"))],
        ),
        poker(
            "poker-ranks-not-grouped",
            "sorted ranks compared without grouping by count: the category, then all five ranks high to low.",
            &[(
                RANKS,
                "let mut ranks: Vec<u32> = cards.iter().map(|c| u32::from(c.value())).collect();\n    ranks.sort_unstable_by(|a, b| b.cmp(a));",
            )],
        ),
        poker(
            "poker-straight-flush-is-a-flush",
            "straight flush seen as a flush.",
            &[(
                "        (Some(_), true, _) => Category::StraightFlush,\n",
                "",
            )],
        ),
    ]
}

fn draw(name: &'static str, bug: &'static str, edits: &[(&'static str, &str)]) -> Mutant {
    Mutant::of(Module::Draw, name, bug, edits)
}

const CHECKED: &str = "        check_positions(positions)?;\n        if let Some(&beyond) = positions.iter().find(|&&p| p as usize > hand.len()) {\n            return Err(DiscardError::OutOfRange(beyond));\n        }\n";

const IMPORTS: &str = "use grader_api::draw::{DiscardError, DrawGame, check_positions};";

/// A draw mutant checking the positions itself, as students do, with only the checks asked
/// for: at most 3 positions, none twice, each 1 to 5.
fn checked_by_hand(
    name: &'static str,
    bug: &'static str,
    count: bool,
    repeats: bool,
    range: bool,
) -> Mutant {
    let mut body = String::new();
    if count {
        body.push_str("        if positions.len() > 3 {\n            return Err(DiscardError::TooMany(positions.len()));\n        }\n");
    }
    body.push_str(if repeats {
        "        for (index, &position) in positions.iter().enumerate() {\n"
    } else {
        "        for &position in positions {\n"
    });
    if range {
        body.push_str("            if !(1..=5).contains(&position) {\n                return Err(DiscardError::OutOfRange(position));\n            }\n");
    }
    if repeats {
        body.push_str("            if positions[..index].contains(&position) {\n                return Err(DiscardError::Repeated(position));\n            }\n");
    }
    body.push_str("        }\n");
    draw(
        name,
        bug,
        &[
            (IMPORTS, "use grader_api::draw::{DiscardError, DrawGame};"),
            (CHECKED, &body),
        ],
    )
}

/// Seed 004's draw bugs, one each.
pub fn buggy_draw() -> Vec<Mutant> {
    vec![
        checked_by_hand(
            "draw-four-discards-accepted",
            "more than 3 positions accepted.",
            false,
            true,
            true,
        ),
        checked_by_hand(
            "draw-repeated-position-accepted",
            "a repeated position accepted: the slot is replaced twice.",
            true,
            false,
            true,
        ),
        checked_by_hand(
            "draw-position-out-of-range-panics",
            "position 0 or 6 not checked: the hand is indexed out of bounds, a panic instead of an error.",
            true,
            true,
            false,
        ),
        draw(
            "draw-replacements-in-slot-order",
            "replacements dealt in ascending slot order instead of the order typed.",
            &[(
                "        for &position in positions {\n",
                "        let mut sorted = positions.to_vec();\n        sorted.sort_unstable();\n        for &position in &sorted {\n",
            )],
        ),
        draw(
            "draw-dealer-discards-four",
            "dealer_discards returns up to 4 positions.",
            &[(".take(3)", ".take(4)")],
        ),
        draw(
            "draw-standard-ties",
            "standard ties used in the draw game: the hand ignores draw_1572.",
            &[("match rules.ties {", "match Ties::Standard {")],
        ),
    ]
}

fn crazy8(name: &'static str, bug: &'static str, edits: &[(&'static str, &str)]) -> Mutant {
    Mutant::of(Module::Crazy8, name, bug, edits)
}

const DEAL: &str = "        for _ in 0..HAND_SIZE {\n            for hand in hands.iter_mut() {\n                hand.extend(deck.draw());\n            }\n        }\n";
const DECLARED: &str = "declared = (card.value() == 8).then(|| players[seat].declare_suit());";
const HELD: &str = "let Some(position) = hands[seat].iter().position(|&c| c == card) else {\n                    return finish(&hands, None, log, Some(cheat(CheatKind::NotHeld)));\n                };";
const BURY: &str = "        deck.bury(card);\n";
const STARTER: &str = "let Some(mut top) = turn_over_starter(deck) else {";

/// Seed 003's engine bugs (DOMAIN.md's Crazy Eights line and others students write), one each.
pub fn buggy_crazy8() -> Vec<Mutant> {
    vec![
        crazy8(
            "crazy8-strategy-hangs",
            "a strategy whose should_draw_card never returns.",
            &[(
                "        self.inner.should_draw_card(top, declared_suit)",
                "        loop {\n            std::hint::spin_loop();\n        }",
            )],
        ),
        crazy8(
            "crazy8-strategy-plays-a-card-not-held",
            "a strategy that plays a card it does not hold from its third turn.",
            &[(
                "    const STYLE: Harness = Harness::EightsLast;",
                "    const STYLE: Harness = Harness::Cheater {\n        kind: CheatKind::NotHeld,\n        at_turn: 3,\n    };",
            )],
        ),
        crazy8(
            "crazy8-declared-suit-ignored",
            "declared suit ignored: a card is checked against the top card's suit even after an 8.",
            &[(
                "if !is_legal(card, top, declared) {",
                "if !is_legal(card, top, None) {",
            )],
        ),
        crazy8(
            "crazy8-declared-suit-never-cleared",
            "declared suit never cleared: it stays in force after a card other than an 8 is played.",
            &[
                (
                    DECLARED,
                    "let declared_now = (card.value() == 8).then(|| players[seat].declare_suit());\n                if declared_now.is_some() {\n                    declared = declared_now;\n                }",
                ),
                ("declared_suit: declared,", "declared_suit: declared_now,"),
            ],
        ),
        crazy8(
            "crazy8-discard-pile-not-updated",
            "discard pile not updated: the starter stays the top card all game.",
            &[
                ("                top = card;\n", ""),
                (STARTER, "let Some(top) = turn_over_starter(deck) else {"),
            ],
        ),
        crazy8(
            "crazy8-held-check-missing",
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
        ),
        crazy8(
            "crazy8-already-played-check-missing",
            "already-played check missing: a replayed card is only caught as not held.",
            &[(
                "                if played.contains(&card) {\n                    return finish(&hands, None, log, Some(cheat(CheatKind::AlreadyPlayed)));\n                }\n",
                "",
            )],
        ),
        crazy8(
            "crazy8-starter-8-kept",
            "starter 8 not buried: an 8 turned over stays the starter.",
            &[(
                "        if card.value() != 8 {\n            return Some(card);\n        }\n",
                "        return Some(card);\n",
            )],
        ),
        crazy8(
            "crazy8-starter-8-duplicated",
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
        ),
        crazy8(
            "crazy8-same-cards-for-everyone",
            "every player dealt the same cards: each card drawn once and given to all four.",
            &[(
                DEAL,
                "        for _ in 0..HAND_SIZE {\n            let card = deck.draw();\n            for hand in hands.iter_mut() {\n                hand.extend(card);\n            }\n        }\n",
            )],
        ),
        crazy8(
            "crazy8-dealt-five-at-a-time",
            "five cards dealt to one player, then five to the next, not one at a time round the table.",
            &[(
                DEAL,
                "        for hand in hands.iter_mut() {\n            for _ in 0..HAND_SIZE {\n                hand.extend(deck.draw());\n            }\n        }\n",
            )],
        ),
        crazy8(
            "crazy8-totals-assigned",
            "`=` instead of `+=` in tournament totals: each game's score replaces the total.",
            &[("*total += score;", "*total = *score;")],
        ),
        crazy8(
            "crazy8-points-to-the-first-player",
            "points to the first player listed instead of the winner.",
            &[(
                "(None, Some(winner)) => (0..hands.len())\n            .map(|seat| if seat == winner { all } else { 0 })",
                "(None, Some(_)) => (0..hands.len())\n            .map(|seat| if seat == 0 { all } else { 0 })",
            )],
        ),
        crazy8(
            "crazy8-no-winner-scores-own-hand",
            "with no winner each player scores its own hand, not the others'.",
            &[(
                "hand_points.iter().map(|own| all - own).collect()",
                "hand_points.clone()",
            )],
        ),
        crazy8(
            "crazy8-opponent-actions-never-sent",
            "process_opponent_actions never called.",
            &[(
                "            players[seat].process_opponent_actions(&log[last_turn_of[seat]..]);\n",
                "",
            )],
        ),
        crazy8(
            "crazy8-game-goes-on-with-an-empty-pile",
            "the game not ending when the draw pile empties: it goes on until a player wants to draw.",
            &[(
                "            if deck.is_empty() {\n                return finish(&hands, None, log, None);\n            }\n",
                "",
            )],
        ),
        crazy8(
            "crazy8-deck-not-renewed",
            "the deck not renewed between tournament games: the next game is dealt from what is left.",
            &[("                deck.renew();\n", "")],
        ),
        crazy8(
            "crazy8-cheat-does-not-end-the-tournament",
            "a cheat ends the game but not the tournament: the next game starts.",
            &[(
                "                result.cheater = game.cheater;\n                return result;\n",
                "                result.cheater = game.cheater;\n",
            )],
        ),
    ]
}

pub fn named(name: &str) -> PathBuf {
    buggy()
        .into_iter()
        .chain(buggy_tableau())
        .chain(buggy_blackjack())
        .chain(buggy_poker())
        .chain(buggy_draw())
        .chain(buggy_crazy8())
        .chain(hostile())
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no mutant {name}"))
        .write()
}
