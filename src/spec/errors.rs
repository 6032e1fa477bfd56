//! A spec that cannot be used, where, and every such error of the specs loaded.

use std::collections::HashMap;

use super::places::place_in;
use super::{Group, TestCase};

/// A spec that cannot be used, and where.
#[derive(Debug, thiserror::Error)]
#[error("{file}{}: {message}", location.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
pub struct SpecError {
    pub file: String,
    pub location: Option<(usize, usize)>,
    pub message: String,
}

/// Every error of the specs loaded, in file order.
#[derive(Debug)]
pub struct SpecErrors(pub Vec<SpecError>);

impl std::fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0[..] {
            [one] => write!(f, "{one}"),
            all => {
                write!(f, "{} problems in the specs:", all.len())?;
                all.iter().try_for_each(|error| write!(f, "\n  {error}"))
            }
        }
    }
}

impl From<SpecError> for SpecErrors {
    fn from(error: SpecError) -> SpecErrors {
        SpecErrors(vec![error])
    }
}

/// Tests whose ids are the same: ids are slugs of names, so `Pair!` and `pair` collide,
/// and both places are said.
pub fn colliding_ids(groups: &[Group]) -> Vec<SpecError> {
    let mut seen: HashMap<&str, &TestCase> = HashMap::new();
    let mut collisions = Vec::new();
    for test in groups.iter().flat_map(|group| &group.tests) {
        let Some(first) = seen.insert(&test.id, test) else {
            continue;
        };
        collisions.push(SpecError {
            file: test.file.clone(),
            location: test.location,
            message: format!(
                "this test's id is `{}`, as is the test `{}` at {}; give one of them another name",
                test.id,
                first.name,
                place_in(&first.file, first.location)
            ),
        });
    }
    collisions
}
