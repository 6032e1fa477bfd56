//! The Plaisante tableau (seed 000): cards held, selected and played.

use std::fmt;

use crate::assignment::{Answering, Assignment, Lines, guarded};
use crate::card::{Card, format_cards};
use crate::deck::{Deck, below, seeded_rng};
use crate::protocol::{Reply, group_digits};
use crate::source::{Generator, Source};
use crate::submission::Submission;

#[cfg(feature = "spec")]
mod spec;
pub mod stand_in;

/// At most this many cards can be selected at once.
pub const MAX_SELECTED: usize = 5;
/// [`Tableau::deal_from`] fills the held row up to this many cards.
pub const MAX_HELD: usize = 8;

/// The seed's `Tableau` class: three lists of cards and the moves between them.
///
/// Students write `toggle_selection` and `move_selected_to_play_area`; `deal_from` is
/// provided, as in the seed's starter file.
pub trait Tableau {
    /// An empty tableau.
    fn new() -> Self
    where
        Self: Sized;

    /// The row of up to [`MAX_HELD`] cards the player can choose from, in order.
    fn held(&self) -> &[Card];
    /// The held row itself, for [`Tableau::deal_from`].
    fn held_mut(&mut self) -> &mut Vec<Card>;
    /// The cards the player has clicked, in the order clicked; always a subset of `held`.
    fn selected(&self) -> &[Card];
    /// The cards the player has committed to playing, in the order played.
    fn play_area(&self) -> &[Card];

    /// Draws from `deck` until [`MAX_HELD`] cards are held or the deck is empty (provided).
    fn deal_from(&mut self, deck: &mut Deck) {
        while self.held().len() < MAX_HELD {
            match deck.draw() {
                Some(card) => self.held_mut().push(card),
                None => break,
            }
        }
    }

    /// The player clicked `card`: deselect it if selected; otherwise select it if fewer
    /// than [`MAX_SELECTED`] cards are selected; a full selection, or a card that is not
    /// held, changes nothing.
    fn toggle_selection(&mut self, card: Card);

    /// The player pressed Play: every selected card leaves `held` for the play area, in
    /// selection order, and nothing is selected any more.
    fn move_selected_to_play_area(&mut self);
}

/// One thing a player does to a tableau.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// `deal_from` the script's deck.
    Deal,
    Toggle(Card),
    /// `move_selected_to_play_area`.
    Play,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Deal => f.write_str("deal_from(deck)"),
            Step::Toggle(card) => write!(f, "toggle_selection({card})"),
            Step::Play => f.write_str("move_selected_to_play_area()"),
        }
    }
}

/// A deck and the steps played on a fresh tableau; answered by the state after each step.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Script {
    pub deck: Vec<Card>,
    pub steps: Vec<Step>,
}

impl Script {
    /// The deck and the steps up to and including step `last` (counting from 0), numbered.
    pub fn describe_through(&self, last: usize) -> String {
        let mut out = format!("deck: {}\n", format_or_none(&self.deck));
        for (index, step) in self.steps.iter().enumerate().take(last + 1) {
            out.push_str(&format!("{:>2}. {step}\n", index + 1));
        }
        out.trim_end().to_string()
    }
}

/// The three lists of a tableau.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State {
    pub held: Vec<Card>,
    pub selected: Vec<Card>,
    pub play_area: Vec<Card>,
}

impl State {
    pub fn of(tableau: &dyn Tableau) -> State {
        State {
            held: tableau.held().to_vec(),
            selected: tableau.selected().to_vec(),
            play_area: tableau.play_area().to_vec(),
        }
    }

    /// The lists by name, in display order.
    pub fn lists(&self) -> [(&'static str, &[Card]); 3] {
        [
            ("held", &self.held),
            ("selected", &self.selected),
            ("play_area", &self.play_area),
        ]
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self
            .lists()
            .iter()
            .map(|(name, cards)| format!("{name:<9} {}", format_or_none(cards)))
            .collect();
        f.write_str(&lines.join("\n"))
    }
}

fn format_or_none(cards: &[Card]) -> String {
    if cards.is_empty() {
        "(none)".into()
    } else {
        format_cards(cards)
    }
}

/// `count` random scripts from `seed`: a deck of 8 to 20 cards, a deal, then toggles of
/// held and unheld cards, plays and deals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomScripts {
    pub count: u32,
    pub seed: u64,
}

impl Generator for RandomScripts {
    type Item = Script;

    fn count(&self) -> u32 {
        self.count
    }

    fn generate(&self, visit: &mut dyn FnMut(Script) -> bool) {
        let RandomScripts { count, seed } = self;
        let mut rng = seeded_rng(*seed);
        for _ in 0..*count {
            let deck_size = 8 + below(&mut rng, 13) as usize;
            let deck: Vec<Card> = Deck::shuffled(u64::from(rng_word(&mut rng)))
                .remaining()
                .into_iter()
                .take(deck_size)
                .collect();
            let mut steps = vec![Step::Deal];
            for _ in 0..24 {
                steps.push(match below(&mut rng, 20) {
                    0..=1 => Step::Play,
                    2 => Step::Deal,
                    _ => Step::Toggle(deck[below(&mut rng, deck.len() as u32) as usize]),
                });
            }
            if !visit(Script { deck, steps }) {
                return;
            }
        }
    }
}

/// Where the scripts of a request come from.
pub type ScriptSource = Source<Script, RandomScripts>;

fn rng_word(rng: &mut rand_chacha::ChaCha8Rng) -> u32 {
    rand_core::Rng::next_u32(rng)
}

/// Plays `script` on `tableau`, emitting the state after each step; stops when `emit`
/// returns `false`.
pub fn play_script(
    tableau: &mut dyn Tableau,
    script: &Script,
    mut emit: impl FnMut(State) -> bool,
) {
    let mut deck = Deck::stacked(script.deck.clone());
    for step in &script.steps {
        match step {
            Step::Deal => tableau.deal_from(&mut deck),
            Step::Toggle(card) => tableau.toggle_selection(*card),
            Step::Play => tableau.move_selected_to_play_area(),
        }
        if !emit(State::of(tableau)) {
            return;
        }
    }
}

crate::wire_enum!(Step {
    Deal,
    Toggle(card),
    Play
});
crate::wire_struct!(Script { deck, steps });
crate::wire_struct!(State {
    held,
    selected,
    play_area
});
crate::wire_struct!(RandomScripts { count, seed });

/// Builds a fresh tableau of the submission's.
pub type TableauBuilder = fn() -> Box<dyn Tableau>;

/// The Plaisante tableau assignment (seed 000).
pub struct Contract;

impl Assignment for Contract {
    contract_items!(
        "tableau",
        ".tableau::<YourTableau>()",
        TableauBuilder,
        request: ScriptSource,
        input: Script,
        answer: State
    );

    fn respond(mut answering: Answering<'_, Self>) {
        let source = answering.request;
        source.for_each(answering.window.only(|script: Script| {
            let mut replies = Vec::with_capacity(script.steps.len());
            match answering.registered {
                None => replies.resize(script.steps.len(), Reply::NotRegistered),
                Some(build) => {
                    let played = guarded(|| {
                        let mut tableau = build();
                        play_script(&mut *tableau, &script, |state| {
                            replies.push(Reply::Answer(state));
                            true
                        });
                    });
                    if let Err(panic) = played {
                        replies.resize(script.steps.len(), Reply::Panicked(panic));
                    }
                }
            }
            answering.answer(script, replies)
        }));
    }

    fn input_count(source: &ScriptSource) -> u64 {
        source.len()
    }

    fn question(_: &ScriptSource, index: usize) -> String {
        format!("the state after step {}", index + 1)
    }

    fn question_kind(_: &ScriptSource, _: usize) -> String {
        "state".into()
    }

    fn describe_inputs(source: &ScriptSource) -> String {
        match source {
            Source::Listed(scripts) => format!("{} scripts", scripts.len()),
            Source::Generated(RandomScripts { count, seed }) => format!(
                "{} random step sequences from seed {seed}, each state compared",
                group_digits(u64::from(*count))
            ),
        }
    }

    fn input_label(_: &Script) -> &'static str {
        "steps"
    }

    fn describe_input(script: &Script, through: usize) -> String {
        script.describe_through(through)
    }

    fn lines(state: &State) -> Option<Lines> {
        Some(Lines::Text(state.to_string()))
    }

    fn kind(_: &State) -> Option<&'static str> {
        Some("state")
    }
}

impl Submission {
    /// Registers `T` as this submission's Plaisante tableau.
    pub fn tableau<T: Tableau + 'static>(self) -> Submission {
        self.register::<Contract>(builder_of!(Tableau, T))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::round_trip;

    #[test]
    fn scripts_and_states_round_trip() {
        let card: Card = "KH".parse().unwrap();
        round_trip(Script {
            deck: vec![card],
            steps: vec![Step::Deal, Step::Toggle(card), Step::Play],
        });
        round_trip(State {
            held: vec![card],
            selected: vec![],
            play_area: vec![card, card],
        });
        round_trip(ScriptSource::Generated(RandomScripts { count: 3, seed: 9 }));
    }

    #[test]
    fn generated_scripts_are_repeatable_and_toggle_cards_of_their_deck() {
        let source = Source::Generated(RandomScripts { count: 50, seed: 4 });
        let mut first = Vec::new();
        source.for_each(|s| {
            first.push(s);
            true
        });
        let mut second = Vec::new();
        source.for_each(|s| {
            second.push(s);
            true
        });
        assert_eq!(first, second);
        for script in &first {
            assert!((8..=20).contains(&script.deck.len()));
            assert_eq!(script.steps[0], Step::Deal);
            for step in &script.steps {
                if let Step::Toggle(card) = step {
                    assert!(script.deck.contains(card));
                }
            }
        }
    }
}
