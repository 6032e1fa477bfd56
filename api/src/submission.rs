//! The registry a submission's `lib.rs` returns from `pub fn submission()`. Each
//! assignment's module adds its builder call (`.blackjack::<H, G>()`) to [`Submission`].

use std::any::Any;

use crate::assignment::Assignment;

/// What a submission implements, one builder call per assignment:
///
/// ```
/// # use grader_api::{Card, PlaisanteHand, Submission};
/// # struct MyHand(Vec<Card>);
/// # impl PlaisanteHand for MyHand {
/// #     fn new(cards: Vec<Card>) -> Self { MyHand(cards) }
/// #     fn cards(&self) -> &[Card] { &self.0 }
/// #     fn count_values(&self) -> Vec<u32> { todo!() }
/// #     fn has_pair(&self) -> bool { todo!() }
/// #     fn has_two_pair(&self) -> bool { todo!() }
/// #     fn has_three_of_a_kind(&self) -> bool { todo!() }
/// #     fn has_four_of_a_kind(&self) -> bool { todo!() }
/// #     fn has_full_house(&self) -> bool { todo!() }
/// #     fn has_flush(&self) -> bool { todo!() }
/// #     fn has_straight(&self) -> bool { todo!() }
/// # }
/// pub fn submission() -> Submission {
///     Submission::new().plaisante_hand::<MyHand>()
/// }
/// ```
#[derive(Default)]
pub struct Submission {
    /// Each registered assignment's builders, under its name.
    registered: Vec<(&'static str, Box<dyn Any + Send + Sync>)>,
}

impl Submission {
    pub fn new() -> Submission {
        Submission::default()
    }

    /// Registers `builders` for `A`, replacing any registered before.
    pub(crate) fn register<A: Assignment>(mut self, builders: A::Registered) -> Submission {
        self.registered.retain(|(name, _)| *name != A::NAME);
        self.registered.push((A::NAME, Box::new(builders)));
        self
    }

    /// Changes what is registered for `A`, starting from nothing registered.
    pub(crate) fn update<A: Assignment>(
        mut self,
        change: impl FnOnce(&mut A::Registered),
    ) -> Submission
    where
        A::Registered: Default,
    {
        if self.registered::<A>().is_none() {
            self = self.register::<A>(A::Registered::default());
        }
        let builders = self
            .registered
            .iter_mut()
            .find(|(name, _)| *name == A::NAME)
            .and_then(|(_, builders)| builders.downcast_mut())
            .expect("registered just above");
        change(builders);
        self
    }

    /// This submission with what `register` adds: each assignment's module of a
    /// submission may say what it registers in one function
    /// (`Submission::new().with(poker::register)`).
    pub fn with(self, register: impl FnOnce(Submission) -> Submission) -> Submission {
        register(self)
    }

    /// What is registered for `A`.
    pub fn registered<A: Assignment>(&self) -> Option<&A::Registered> {
        self.registered
            .iter()
            .find(|(name, _)| *name == A::NAME)
            .and_then(|(_, builders)| builders.downcast_ref())
    }

    /// The names of the assignments registered.
    pub fn assignments(&self) -> Vec<String> {
        self.registered
            .iter()
            .map(|(name, _)| name.to_string())
            .collect()
    }
}
