//! The libraries of bugs an audit grades: those of the assignments its suite grades, in the
//! order their groups come.

use reference::bugs::{Bug, LIBRARIES, Library};

use crate::spec::Suite;

/// The library's bugs of each assignment `suite` grades, in the order its groups come.
pub fn bugs_of(suite: &Suite) -> Vec<(&'static Library, Bug)> {
    libraries_of(suite)
        .into_iter()
        .flat_map(|library| (library.bugs)().into_iter().map(move |bug| (library, bug)))
        .collect()
}

/// The library of each assignment `suite` grades, in the order its groups come.
pub fn libraries_of(suite: &Suite) -> Vec<&'static Library> {
    let mut assignments: Vec<&str> = Vec::new();
    for group in &suite.groups {
        let name = group.assignment.name();
        if !assignments.contains(&name) {
            assignments.push(name);
        }
    }
    assignments
        .iter()
        .flat_map(|name| {
            LIBRARIES
                .iter()
                .filter(move |library| library.assignment == *name)
        })
        .collect()
}
