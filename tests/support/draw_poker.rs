//! Five-card draw games written otherwise than the reference, correctly: every test must
//! pass them. Its bugs are the library's, `reference::draw_poker::bugs`.

use super::*;

/// Correct games written otherwise than the reference: every test must pass them.
pub fn alternatives() -> Vec<Mutant> {
    vec![Mutant::of(
        "draw_poker",
        "alternative-dealer-discards-the-first-three",
        "not a bug: a dealer that keeps a flush or a straight and otherwise discards its first three cards, as 3, 1, 2; the rules allow any choice of up to three positions.",
        &[(
            "        if flush || straight {\n            return Vec::new();\n        }\n",
            "        if flush || straight {\n            return Vec::new();\n        }\n        if hand.len() == 5 {\n            // Short of a flush or a straight, the first three cards go.\n            return vec![3, 1, 2];\n        }\n",
        )],
    )]
}
