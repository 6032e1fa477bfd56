//! Buggy and hostile submissions made from the reference by small edits, one mistake
//! each, so they stay in step with the reference instead of being copies of it.

use std::path::{Path, PathBuf};

/// Which reference module a mutant is made from.
#[derive(Clone, Copy)]
pub enum Module {
    Plaisante,
    Tableau,
    Blackjack,
}

impl Module {
    fn file(self) -> &'static str {
        match self {
            Module::Plaisante => "reference/src/plaisante.rs",
            Module::Tableau => "reference/src/tableau.rs",
            Module::Blackjack => "reference/src/blackjack.rs",
        }
    }

    fn registration(self) -> &'static str {
        match self {
            Module::Plaisante => "plaisante_hand::<Hand>()",
            Module::Tableau => "tableau::<Table>()",
            Module::Blackjack => "blackjack::<Hand, Game>()",
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
        let reference = std::fs::read_to_string(repo.join(self.module.file())).unwrap();
        let end = reference.find("#[cfg(test)]").unwrap_or(reference.len());
        let mut source = reference[..end].to_string();
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

pub fn named(name: &str) -> PathBuf {
    buggy()
        .into_iter()
        .chain(hostile())
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no mutant {name}"))
        .write()
}
