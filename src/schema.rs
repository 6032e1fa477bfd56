//! `grader schema`: the JSON Schema (draft-07) of spec files, which an editor with
//! yaml-language-server checks and completes a file against when its first line is
//! `# yaml-language-server: $schema=PATH`. It is made from the types each assignment's
//! loader reads a file with, so it cannot drift from what the grader accepts.

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

/// The schema of a spec file: its `assignment` names one, and the rest of it is checked
/// against that assignment's rules and groups.
pub fn spec_schema() -> Value {
    let settings = SchemaSettings::draft07();
    let mut definitions = Map::new();
    let mut by_assignment = Vec::new();
    for unit in grader_api::ASSIGNMENTS {
        let name = unit.name();
        // Every assignment has its own `Group` and `Case`: each keeps its definitions
        // under its name.
        let mut generator = settings
            .clone()
            .with(|settings| settings.definitions_path = format!("/definitions/{name}").into())
            .into_generator();
        let mut file = unit.schema(&mut generator);
        for transform in generator.transforms_mut() {
            transform.transform(&mut file);
        }
        definitions.insert(name.into(), generator.take_definitions(true).into());
        by_assignment.push(json!({
            "if": { "properties": { "assignment": { "const": name } }, "required": ["assignment"] },
            "then": file,
        }));
    }
    let names: Vec<&str> = grader_api::ASSIGNMENTS
        .iter()
        .map(|unit| unit.name())
        .collect();
    json!({
        "$schema": settings.meta_schema,
        "title": "cardgrade spec file",
        "description": "The tests of one assignment, in groups. Made by `grader schema`.",
        "type": "object",
        "required": ["assignment"],
        "properties": {
            "assignment": { "description": "The assignment the file grades.", "enum": names }
        },
        "allOf": by_assignment,
        "definitions": definitions,
    })
}
