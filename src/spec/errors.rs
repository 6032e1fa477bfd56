//! A spec that cannot be used, where, and every such error of the specs loaded.

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
