//! The Plaisante tableau as a stand-in (see [`crate::stand_in`]): a `Table` whose every
//! method, `deal_from` too, is answered by the implementation under test.

use std::io;
use std::sync::{Mutex, OnceLock, PoisonError};

use super::{Contract, Tableau, TableauBuilder};
use crate::card::Card;
use crate::deck::Deck;
use crate::stand_in::{
    self, Answerer, CONSTRUCTORS, Call, NoCallbacks, Objects, method_of, no_args,
};
use crate::submission::Submission;
use crate::wire::Wire;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Method {
    New,
    Held,
    HeldMut,
    /// Not the trait's: gives back the held row `held_mut` lent, as the test left it.
    SetHeld,
    Selected,
    PlayArea,
    DealFrom,
    ToggleSelection,
    MoveSelectedToPlayArea,
}

impl Method {
    const ALL: [Method; 9] = [
        Method::New,
        Method::Held,
        Method::HeldMut,
        Method::SetHeld,
        Method::Selected,
        Method::PlayArea,
        Method::DealFrom,
        Method::ToggleSelection,
        Method::MoveSelectedToPlayArea,
    ];
}

/// Registers the stand-in, as an implementation's `register` does its types.
pub fn register(submission: Submission) -> Submission {
    submission.tableau::<Table>()
}

/// A tableau made and answered by the implementation under test.
pub struct Table {
    number: u64,
    /// The lists as last answered, lent out by the methods that return slices; stale after
    /// any call that may change the tableau, so such a call drops them.
    seen: Seen,
    /// The held row `held_mut` lent the test, perhaps edited since: it goes back to the
    /// implementation before the next call, so that call sees the edits.
    lent: Mutex<Option<Vec<Card>>>,
}

#[derive(Default)]
struct Seen {
    held: OnceLock<Vec<Card>>,
    selected: OnceLock<Vec<Card>>,
    play_area: OnceLock<Vec<Card>>,
}

/// What a method that returns nothing answers.
struct Nothing;

impl Wire for Nothing {
    fn put(&self, _: &mut (impl io::Write + ?Sized)) -> io::Result<()> {
        Ok(())
    }
    fn take(_: &mut (impl io::Read + ?Sized)) -> io::Result<Nothing> {
        Ok(Nothing)
    }
}

impl Table {
    fn ask<R: Wire>(&self, method: Method, args: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> R {
        let lent = self
            .lent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(held) = lent {
            let put = |out: &mut Vec<u8>| held.put(out);
            stand_in::ask::<Nothing>(self.number, Method::SetHeld as u64, put, &mut NoCallbacks);
        }
        stand_in::ask(self.number, method as u64, args, &mut NoCallbacks)
    }

    /// Asks a method that may change the tableau.
    fn change<R: Wire>(
        &mut self,
        method: Method,
        args: impl FnOnce(&mut Vec<u8>) -> io::Result<()>,
    ) -> R {
        self.seen = Seen::default();
        self.ask(method, args)
    }
}

impl Tableau for Table {
    fn new() -> Table {
        Table {
            number: stand_in::ask(CONSTRUCTORS, Method::New as u64, no_args, &mut NoCallbacks),
            seen: Seen::default(),
            lent: Mutex::new(None),
        }
    }

    fn held(&self) -> &[Card] {
        self.seen
            .held
            .get_or_init(|| self.ask(Method::Held, no_args))
    }

    fn held_mut(&mut self) -> &mut Vec<Card> {
        let held = self.change(Method::HeldMut, no_args);
        let lent = self.lent.get_mut().unwrap_or_else(PoisonError::into_inner);
        lent.insert(held)
    }

    fn selected(&self) -> &[Card] {
        let selected = &self.seen.selected;
        selected.get_or_init(|| self.ask(Method::Selected, no_args))
    }

    fn play_area(&self) -> &[Card] {
        let play_area = &self.seen.play_area;
        play_area.get_or_init(|| self.ask(Method::PlayArea, no_args))
    }

    /// The implementation deals from a copy of `deck`, which then takes the copy's place.
    fn deal_from(&mut self, deck: &mut Deck) {
        *deck = self.change(Method::DealFrom, |out| deck.put(out));
    }

    fn toggle_selection(&mut self, card: Card) {
        self.change::<Nothing>(Method::ToggleSelection, |out| card.put(out));
    }

    fn move_selected_to_play_area(&mut self) {
        self.change::<Nothing>(Method::MoveSelectedToPlayArea, no_args);
    }
}

/// The oracle's side: `submission`'s tableaus, made and asked at the test's calls.
struct Server {
    build: TableauBuilder,
    tableaus: Objects<dyn Tableau>,
}

pub(crate) fn server(submission: &Submission) -> Option<Box<dyn Answerer + '_>> {
    Some(Box::new(Server {
        build: *submission.registered::<Contract>()?,
        tableaus: Objects::default(),
    }))
}

impl Answerer for Server {
    fn answer(&mut self, call: Call<'_>) -> io::Result<()> {
        let method = method_of(&Method::ALL, call.method)?;
        if method == Method::New {
            return self.tableaus.keep((self.build)(), call.out);
        }
        let tableau = self.tableaus.get(call.object)?;
        let mut tableau = tableau.borrow_mut();
        match method {
            Method::New | Method::Held => tableau.held().to_vec().put(call.out),
            Method::HeldMut => tableau.held_mut().clone().put(call.out),
            Method::SetHeld => {
                *tableau.held_mut() = Vec::take(call.args)?;
                Nothing.put(call.out)
            }
            Method::Selected => tableau.selected().to_vec().put(call.out),
            Method::PlayArea => tableau.play_area().to_vec().put(call.out),
            Method::DealFrom => {
                let mut deck = Deck::take(call.args)?;
                tableau.deal_from(&mut deck);
                deck.put(call.out)
            }
            Method::ToggleSelection => {
                tableau.toggle_selection(Card::take(call.args)?);
                Nothing.put(call.out)
            }
            Method::MoveSelectedToPlayArea => {
                tableau.move_selected_to_play_area();
                Nothing.put(call.out)
            }
        }
    }
}
