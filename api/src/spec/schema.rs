//! The JSON Schema of spec files, derived (schemars) from the very types [`super`] reads
//! them with; a type read by hand describes what it reads beside its own impl.

use schemars::{JsonSchema, Schema, SchemaGenerator};

use super::{Spec, SpecFile};

/// The JSON Schema of a spec file of `A`: [`SpecFile`]'s, its `assignment` fixed to `A`'s
/// name so that an editor knows which groups the file's are.
pub(crate) fn file_schema<A: Spec>(generator: &mut SchemaGenerator) -> Schema {
    let mut schema = SpecFile::<A::Rules, A::Group>::json_schema(generator);
    schema
        .pointer_mut("/properties/assignment")
        .and_then(|assignment| assignment.as_object_mut())
        .expect("a spec file's schema has the property `assignment`")
        .insert("const".into(), A::NAME.into());
    schema
}

/// A value of any shape, as the schema of a field whose type its neighbours decide (an
/// `expect:`, by its check) or whose presence alone counts.
pub(crate) struct AnyValue;

impl JsonSchema for AnyValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AnyValue".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        true.into()
    }
}
