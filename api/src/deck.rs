//! Decks and the hands the grader deals from them.
//!
//! A seed must mean the same deck on every machine and every version, so shuffling uses
//! ChaCha8 seeded by our own expansion of the number and our own Fisher-Yates, never a
//! library's shuffle whose algorithm may change.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::card::Card;
use crate::source::Window;

/// A deck of cards. [`Deck::draw`] takes from the top and says when the deck is empty;
/// [`Deck::deal`] never runs out: an empty deck is replaced by a fresh 52 shuffled by the
/// deck's own seeded generator, so a game on the same deck goes the same way everywhere.
#[derive(Clone, Debug)]
pub struct Deck {
    /// The top of the deck is the last element, so drawing is a pop.
    cards: Vec<Card>,
    rng: ChaCha8Rng,
}

impl Deck {
    /// The 52 cards in order, 2♣ on top and A♠ at the bottom.
    pub fn standard() -> Deck {
        Deck::stacked(all_cards())
    }

    /// A deck that deals `cards` in the order given: the first card is drawn first.
    /// Fresh decks after it come from seed 0.
    pub fn stacked(cards: Vec<Card>) -> Deck {
        Deck::stacked_seeded(cards, 0)
    }

    /// Like [`Deck::stacked`], with the fresh decks that follow shuffled from `seed`.
    pub fn stacked_seeded(mut cards: Vec<Card>, seed: u64) -> Deck {
        cards.reverse();
        Deck {
            cards,
            rng: seeded_rng(seed),
        }
    }

    /// The 52 cards shuffled from `seed`, identically everywhere.
    pub fn shuffled(seed: u64) -> Deck {
        let mut rng = seeded_rng(seed);
        let mut cards = all_cards();
        shuffle(&mut cards, &mut rng);
        cards.reverse();
        Deck { cards, rng }
    }

    /// The top card, or `None` when the deck is empty.
    pub fn draw(&mut self) -> Option<Card> {
        self.cards.pop()
    }

    /// The top card; an empty deck is first replaced by a fresh shuffled one.
    pub fn deal(&mut self) -> Card {
        if self.cards.is_empty() {
            self.renew();
        }
        self.cards.pop().expect("a fresh deck holds 52 cards")
    }

    /// Replaces what is left with a fresh 52 shuffled by the deck's own generator.
    pub fn renew(&mut self) {
        let mut fresh = all_cards();
        shuffle(&mut fresh, &mut self.rng);
        fresh.reverse();
        self.cards = fresh;
    }

    /// Puts `card` back at a place in the deck chosen by the deck's own generator
    /// (Crazy Eights buries a starter 8 this way).
    pub fn bury(&mut self, card: Card) {
        let place = below(&mut self.rng, self.cards.len() as u32 + 1) as usize;
        self.cards.insert(place, card);
    }

    pub fn len(&self) -> usize {
        self.cards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// The cards still in the deck, in the order they will be drawn.
    pub fn remaining(&self) -> Vec<Card> {
        self.cards.iter().rev().copied().collect()
    }
}

fn all_cards() -> Vec<Card> {
    (0..Card::COUNT as u8)
        .filter_map(Card::from_index)
        .collect()
}

/// ChaCha8 keyed by `seed` stretched with SplitMix64, a fixed and documented expansion.
pub(crate) fn seeded_rng(seed: u64) -> ChaCha8Rng {
    let mut state = seed;
    let mut key = [0u8; 32];
    for chunk in key.chunks_exact_mut(8) {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    ChaCha8Rng::from_seed(key)
}

/// A uniform number below `bound` (> 0), by rejection so no value is favoured.
pub(crate) fn below(rng: &mut ChaCha8Rng, bound: u32) -> u32 {
    let zone = u32::MAX - u32::MAX % bound;
    loop {
        let x = rng.next_u32();
        if x < zone {
            return x % bound;
        }
    }
}

fn shuffle(cards: &mut [Card], rng: &mut ChaCha8Rng) {
    for i in (1..cards.len()).rev() {
        let j = below(rng, i as u32 + 1) as usize;
        cards.swap(i, j);
    }
}

/// Where the hands of a request come from. The grader and the runner both expand it, so
/// a bulk request crosses the pipe as a few bytes and the hands are never sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandSource {
    /// Hands written out in a spec.
    Listed(Vec<Vec<Card>>),
    Generated(RandomHands),
    /// Every set of `hand_size` distinct cards, in lexicographic order of card index; with
    /// `shuffled`, each hand's cards in an order of their own, so that code reading only
    /// the first and last card of a sorted hand is found out.
    Exhaustive {
        hand_size: u8,
        shuffled: bool,
    },
}

impl HandSource {
    /// How many hands the source yields.
    pub fn len(&self) -> u64 {
        match self {
            HandSource::Listed(hands) => hands.len() as u64,
            HandSource::Generated(hands) => u64::from(hands.count),
            HandSource::Exhaustive { hand_size, .. } => binomial(Card::COUNT as u64, *hand_size),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where the hands come from, for a bulk group's report.
    pub fn describe(&self) -> String {
        match self {
            HandSource::Listed(hands) => format!("{} hands", hands.len()),
            HandSource::Generated(hands) => hands.describe(),
            HandSource::Exhaustive {
                hand_size,
                shuffled,
            } => match shuffled {
                true => format!("every {hand_size}-card hand, each in a shuffled order"),
                false => format!("every {hand_size}-card hand"),
            },
        }
    }

    /// Calls `visit` with each hand in order; stops early when it returns `false`.
    pub fn for_each_hand(&self, visit: impl FnMut(Vec<Card>) -> bool) {
        self.for_each_hand_in(Window::ALL, visit);
    }

    /// Calls `visit` with each hand inside `window`, in order; stops early when it
    /// returns `false`. The hands before the window are passed over without being made.
    pub fn for_each_hand_in(&self, window: Window, mut visit: impl FnMut(Vec<Card>) -> bool) {
        let Window { start, end } = window;
        match self {
            HandSource::Listed(hands) => {
                let start = usize::try_from(start).unwrap_or(usize::MAX);
                let end = usize::try_from(end).unwrap_or(usize::MAX);
                for hand in hands.iter().take(end).skip(start) {
                    if !visit(hand.clone()) {
                        return;
                    }
                }
            }
            HandSource::Generated(hands) => hands.for_each_in(window, visit),
            HandSource::Exhaustive {
                hand_size,
                shuffled,
            } => {
                let size = usize::from(*hand_size);
                if size > Card::COUNT {
                    return;
                }
                let mut rng = seeded_rng(u64::from(*hand_size));
                let mut picks: Vec<u8> = (0..size as u8).collect();
                // The hands before the window are not made, but their shuffles draw from
                // the one stream all the same.
                for _ in 0..start {
                    if *shuffled {
                        for i in (1..size).rev() {
                            below(&mut rng, i as u32 + 1);
                        }
                    }
                    if !next_combination(&mut picks) {
                        return;
                    }
                }
                for _ in start..end {
                    let mut hand: Vec<Card> =
                        picks.iter().filter_map(|&i| Card::from_index(i)).collect();
                    if *shuffled {
                        for i in (1..hand.len()).rev() {
                            hand.swap(i, below(&mut rng, i as u32 + 1) as usize);
                        }
                    }
                    if !visit(hand) || !next_combination(&mut picks) {
                        return;
                    }
                }
            }
        }
    }
}

/// `count` hands of distinct cards drawn from `seed`, each of `min_hand_size` to
/// `hand_size` cards, in the order drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomHands {
    pub count: u32,
    pub seed: u64,
    pub hand_size: u8,
    pub min_hand_size: u8,
}

crate::wire_struct!(RandomHands {
    count,
    seed,
    hand_size,
    min_hand_size
});

impl RandomHands {
    fn describe(&self) -> String {
        let RandomHands {
            count,
            seed,
            hand_size,
            min_hand_size,
        } = self;
        let count = crate::text::group_digits(u64::from(*count));
        match min_hand_size < hand_size {
            true => format!(
                "{count} hands of {min_hand_size} to {hand_size} cards generated from seed {seed}"
            ),
            false => format!("{count} {hand_size}-card hands generated from seed {seed}"),
        }
    }

    /// Calls `visit` with each hand inside `window`, as [`HandSource::for_each_hand_in`]
    /// does; the hands before it are drawn all the same, so that those after are the same
    /// hands in any window.
    fn for_each_in(&self, window: Window, mut visit: impl FnMut(Vec<Card>) -> bool) {
        let Window { start, end } = window;
        let mut rng = seeded_rng(self.seed);
        let mut deck = all_cards();
        let most = usize::from(self.hand_size).min(Card::COUNT);
        let fewest = usize::from(self.min_hand_size).min(most);
        for number in 0..u64::from(self.count).min(end) {
            let size = match fewest < most {
                true => fewest + below(&mut rng, (most - fewest + 1) as u32) as usize,
                false => most,
            };
            // A partial Fisher-Yates: the first `size` places get distinct cards.
            for i in 0..size {
                let j = i + below(&mut rng, (Card::COUNT - i) as u32) as usize;
                deck.swap(i, j);
            }
            if number >= start && !visit(deck[..size].to_vec()) {
                return;
            }
        }
    }
}

/// Moves `picks`, card indexes in increasing order, to the next combination in
/// lexicographic order: bumps the rightmost pick that can move. `false` after the last.
fn next_combination(picks: &mut [u8]) -> bool {
    let size = picks.len();
    let Some(pos) = (0..size)
        .rev()
        .find(|&p| usize::from(picks[p]) < Card::COUNT - size + p)
    else {
        return false;
    };
    picks[pos] += 1;
    for next in pos + 1..size {
        picks[next] = picks[next - 1] + 1;
    }
    true
}

impl crate::wire::Wire for HandSource {
    fn put(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
        use crate::wire::put_varint;
        match self {
            HandSource::Listed(hands) => {
                put_varint(out, 0)?;
                hands.put(out)
            }
            HandSource::Generated(hands) => {
                put_varint(out, 1)?;
                hands.put(out)
            }
            HandSource::Exhaustive {
                hand_size,
                shuffled,
            } => {
                put_varint(out, 2)?;
                hand_size.put(out)?;
                shuffled.put(out)
            }
        }
    }

    fn take(input: &mut (impl std::io::Read + ?Sized)) -> std::io::Result<HandSource> {
        use crate::wire::{Wire, take_tag};
        Ok(match take_tag(input, 3)? {
            0 => HandSource::Listed(Wire::take(input)?),
            1 => HandSource::Generated(Wire::take(input)?),
            _ => HandSource::Exhaustive {
                hand_size: Wire::take(input)?,
                shuffled: Wire::take(input)?,
            },
        })
    }
}

/// A deck crosses whole, its generator where it stands, so that a deck a stand-in lends
/// the implementation under test deals there, and back here, the cards it would have here.
impl crate::wire::Wire for Deck {
    fn put(&self, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
        self.cards.put(out)?;
        out.write_all(&self.rng.get_seed())?;
        self.rng.get_stream().put(out)?;
        out.write_all(&self.rng.get_word_pos().to_le_bytes())
    }

    fn take(input: &mut (impl std::io::Read + ?Sized)) -> std::io::Result<Deck> {
        let cards = Vec::take(input)?;
        let mut seed = [0; 32];
        input.read_exact(&mut seed)?;
        let mut rng = ChaCha8Rng::from_seed(seed);
        rng.set_stream(u64::take(input)?);
        let mut word_pos = [0; 16];
        input.read_exact(&mut word_pos)?;
        rng.set_word_pos(u128::from_le_bytes(word_pos));
        Ok(Deck { cards, rng })
    }
}

fn binomial(n: u64, k: u8) -> u64 {
    let k = u64::from(k);
    if k > n {
        return 0;
    }
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn a_shuffled_deck_holds_each_card_once() {
        let mut deck = Deck::shuffled(42);
        let mut seen = HashSet::new();
        while let Some(card) = deck.draw() {
            assert!(seen.insert(card));
        }
        assert_eq!(seen.len(), 52);
    }

    #[test]
    fn a_seed_means_the_same_deck_forever() {
        // Pinned: if this changes, every published seed in every spec changes meaning.
        let top: Vec<String> = Deck::shuffled(2026)
            .remaining()
            .iter()
            .take(5)
            .map(Card::to_string)
            .collect();
        assert_eq!(top, PINNED_TOP_OF_SEED_2026);
        assert_ne!(Deck::shuffled(1).remaining(), Deck::shuffled(2).remaining());
    }

    const PINNED_TOP_OF_SEED_2026: [&str; 5] = ["3♠", "9♣", "3♣", "2♥", "9♥"];

    #[test]
    fn dealing_never_runs_out_and_the_fresh_deck_depends_on_the_seed() {
        let two: Vec<Card> = ["KH", "2C"].iter().map(|t| t.parse().unwrap()).collect();
        let deal_60 = |seed| {
            let mut deck = Deck::stacked_seeded(two.clone(), seed);
            (0..60).map(|_| deck.deal()).collect::<Vec<_>>()
        };
        let dealt = deal_60(5);
        assert_eq!(dealt[..2], two[..]);
        assert_eq!(dealt[2..54].iter().collect::<HashSet<_>>().len(), 52);
        assert_eq!(dealt, deal_60(5));
        assert_ne!(dealt, deal_60(6));
    }

    #[test]
    fn a_stacked_deck_deals_in_the_listed_order() {
        let cards: Vec<Card> = ["KH", "2C", "AS"]
            .iter()
            .map(|t| t.parse().unwrap())
            .collect();
        let mut deck = Deck::stacked(cards.clone());
        assert_eq!(deck.draw(), Some(cards[0]));
        assert_eq!(deck.remaining(), cards[1..].to_vec());
    }

    #[test]
    fn a_window_of_a_source_holds_the_same_hands_as_that_part_of_all_of_them() {
        let sources = [
            HandSource::Exhaustive {
                hand_size: 3,
                shuffled: true,
            },
            HandSource::Exhaustive {
                hand_size: 2,
                shuffled: false,
            },
            HandSource::Generated(RandomHands {
                count: 500,
                seed: 9,
                hand_size: 5,
                min_hand_size: 1,
            }),
            HandSource::Listed(vec![vec![Card::from_index(0).unwrap()]; 40]),
        ];
        for source in sources {
            let mut all = Vec::new();
            source.for_each_hand(|hand| {
                all.push(hand);
                true
            });
            let total = all.len() as u64;
            for (start, end) in [(0, 1), (7, 30), (total / 2, total), (total - 1, total + 5)] {
                let mut part = Vec::new();
                source.for_each_hand_in(Window { start, end }, |hand| {
                    part.push(hand);
                    true
                });
                let end = end.min(total);
                assert_eq!(
                    part,
                    all[start as usize..end as usize],
                    "{source:?} {start}..{end}"
                );
            }
        }
    }

    #[test]
    fn exhaustive_yields_every_hand_once_sorted_or_shuffled() {
        for shuffled in [false, true] {
            let source = HandSource::Exhaustive {
                hand_size: 3,
                shuffled,
            };
            let mut count = 0u64;
            let mut unsorted = 0u64;
            let mut seen = HashSet::new();
            source.for_each_hand(|hand| {
                count += 1;
                unsorted += u64::from(!hand.is_sorted_by_key(|card| card.index()));
                let mut sorted = hand.clone();
                sorted.sort_by_key(|card| card.index());
                assert!(seen.insert(sorted));
                true
            });
            assert_eq!(count, 22_100);
            assert_eq!(source.len(), 22_100);
            // Shuffled, most hands of three are out of order (5 of every 6 orders are).
            assert_eq!(unsorted > 15_000, shuffled, "{unsorted} hands unsorted");
        }
        let five = HandSource::Exhaustive {
            hand_size: 5,
            shuffled: true,
        };
        assert_eq!(five.len(), 2_598_960);
    }

    #[test]
    fn generated_hands_are_distinct_cards_and_repeatable() {
        let source = HandSource::Generated(RandomHands {
            count: 200,
            seed: 9,
            hand_size: 5,
            min_hand_size: 5,
        });
        let collect = || {
            let mut hands = Vec::new();
            source.for_each_hand(|hand| {
                hands.push(hand);
                true
            });
            hands
        };
        let hands = collect();
        assert_eq!(hands.len(), 200);
        assert_eq!(hands, collect());
        for hand in &hands {
            assert_eq!(hand.iter().collect::<HashSet<_>>().len(), 5);
        }
    }

    #[test]
    fn generated_hands_take_every_size_from_the_fewest_to_the_most() {
        let source = HandSource::Generated(RandomHands {
            count: 500,
            seed: 3,
            hand_size: 5,
            min_hand_size: 0,
        });
        let mut sizes = HashSet::new();
        source.for_each_hand(|hand| {
            assert_eq!(hand.iter().collect::<HashSet<_>>().len(), hand.len());
            sizes.insert(hand.len());
            true
        });
        assert_eq!(sizes, (0..=5).collect());
    }
}
