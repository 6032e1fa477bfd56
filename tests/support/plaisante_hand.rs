//! Plaisante hands written otherwise than the reference, correctly: every test must pass
//! them. Its bugs are the library's, `reference::plaisante_hand::bugs`.

use super::*;

/// Correct hands written otherwise than the reference: every test must pass them.
pub fn alternatives() -> Vec<Mutant> {
    vec![Mutant::new(
        "alternative-straight-by-sorting",
        "not a bug: has_straight sorts the values and checks that each follows the one before.",
        &[(
            "        self.cards.len() == 5\n            && self.highest_value() - self.lowest_value() == 4\n            && self.count_values().iter().all(|&count| count <= 1)",
            "        let mut values: Vec<u8> = self.cards.iter().map(|card| card.value()).collect();\n        values.sort_unstable();\n        values.len() == 5 && values.windows(2).all(|pair| pair[1] == pair[0] + 1)",
        )],
    )]
}
