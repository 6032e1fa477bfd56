//! Cards and suits, parsed the way people write them (`KH`, `10h`, `Th`, `K♥`).

use std::fmt;
use std::str::FromStr;

/// A suit, ordered as the assignments rank them: clubs < diamonds < hearts < spades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    pub fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Hearts => '♥',
            Suit::Spades => '♠',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Suit::Clubs => "clubs",
            Suit::Diamonds => "diamonds",
            Suit::Hearts => "hearts",
            Suit::Spades => "spades",
        }
    }

    fn from_char(c: char) -> Option<Suit> {
        match c.to_ascii_uppercase() {
            'C' | '♣' | '♧' => Some(Suit::Clubs),
            'D' | '♦' | '♢' => Some(Suit::Diamonds),
            'H' | '♥' | '♡' => Some(Suit::Hearts),
            'S' | '♠' | '♤' => Some(Suit::Spades),
            _ => None,
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// A playing card: a value from 2 to 14 (jack 11, queen 12, king 13, ace 14) and a suit.
///
/// Cards order by value, then by suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    value: u8,
    suit: Suit,
}

pub const JACK: u8 = 11;
pub const QUEEN: u8 = 12;
pub const KING: u8 = 13;
pub const ACE: u8 = 14;

/// Why a text is not a card.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    #[error(
        "`{0}` is not a card: write a value (2-10, T, J, Q, K, A) then a suit (C, D, H, S), like `KH`, `10h`, `Th` or `K♥`"
    )]
    Unreadable(String),
    #[error("{0} is not a card value: values run from 2 to 14 (ace)")]
    ValueOutOfRange(u8),
}

impl Card {
    /// Number of distinct cards in a standard deck.
    pub const COUNT: usize = 52;

    pub fn new(value: u8, suit: Suit) -> Result<Card, CardError> {
        if (2..=ACE).contains(&value) {
            Ok(Card { value, suit })
        } else {
            Err(CardError::ValueOutOfRange(value))
        }
    }

    pub fn value(self) -> u8 {
        self.value
    }

    pub fn suit(self) -> Suit {
        self.suit
    }

    /// A dense number from 0 to 51, in card order (2♣ is 0, A♠ is 51).
    pub fn index(self) -> u8 {
        (self.value - 2) * 4 + self.suit as u8
    }

    /// The card whose [`Card::index`] is `index`; `None` past 51.
    pub fn from_index(index: u8) -> Option<Card> {
        (usize::from(index) < Card::COUNT).then(|| Card {
            value: index / 4 + 2,
            suit: Suit::ALL[usize::from(index % 4)],
        })
    }

    /// The rank as people write it: `2`..`10`, `J`, `Q`, `K`, `A`.
    pub fn rank_label(self) -> String {
        match self.value {
            JACK => "J".into(),
            QUEEN => "Q".into(),
            KING => "K".into(),
            ACE => "A".into(),
            v => v.to_string(),
        }
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank_label(), self.suit.symbol())
    }
}

impl FromStr for Card {
    type Err = CardError;

    fn from_str(text: &str) -> Result<Card, CardError> {
        let unreadable = || CardError::Unreadable(text.to_string());
        let trimmed = text.trim();
        let suit_char = trimmed.chars().last().ok_or_else(unreadable)?;
        let suit = Suit::from_char(suit_char).ok_or_else(unreadable)?;
        let rank = &trimmed[..trimmed.len() - suit_char.len_utf8()];
        let value = match rank.to_ascii_uppercase().as_str() {
            "J" => JACK,
            "Q" => QUEEN,
            "K" => KING,
            "A" => ACE,
            "T" | "10" => 10,
            digit if digit.len() == 1 => match digit.as_bytes()[0] {
                b @ b'2'..=b'9' => b - b'0',
                _ => return Err(unreadable()),
            },
            _ => return Err(unreadable()),
        };
        Card::new(value, suit)
    }
}

/// Writes cards the way every report shows them: `K♥ K♦ 3♣ 7♠ 9♥`.
pub fn format_cards(cards: &[Card]) -> String {
    let labels: Vec<String> = cards.iter().map(Card::to_string).collect();
    labels.join(" ")
}

#[cfg(feature = "spec")]
impl<'de> serde::Deserialize<'de> for Card {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Card, D::Error> {
        crate::text::from_text(deserializer, "a card such as `KH`, `10h` or `K♥`")
    }
}

/// What [`Card`]'s `FromStr` reads: a value then a suit, either in any case, the text
/// trimmed.
#[cfg(feature = "spec")]
impl schemars::JsonSchema for Card {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Card".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A card: a value (2-10, T, J, Q, K, A) then a suit (C, D, H, S, ♣, ♦, ♥, ♠), like `KH`, `10h` or `T♥`.",
            "type": "string",
            "pattern": r"^\s*([2-9]|10|[TtJjQqKkAa])[CcDdHhSs♣♧♦♢♥♡♠♤]\s*$"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(text: &str) -> Card {
        text.parse().unwrap()
    }

    #[test]
    fn parses_every_spelling_of_the_king_of_hearts() {
        let king = Card::new(KING, Suit::Hearts).unwrap();
        for text in ["KH", "kh", "Kh", "K♥", " KH ", "k♡"] {
            assert_eq!(card(text), king, "{text}");
        }
    }

    #[test]
    fn parses_ten_both_ways() {
        assert_eq!(card("10h"), card("Th"));
        assert_eq!(card("10h").value(), 10);
    }

    #[test]
    fn rejects_what_is_not_a_card_and_says_what_a_card_looks_like() {
        for text in ["1X", "11H", "", "KHH", "1H", "0S", "K", "♥", "KX"] {
            let err = text.parse::<Card>().unwrap_err().to_string();
            assert!(err.contains("like `KH`"), "{text}: {err}");
        }
    }

    #[test]
    fn a_bad_cards_message_lists_every_value_the_parser_reads() {
        let message = "1X".parse::<Card>().unwrap_err().to_string();
        let listed = message
            .split_once("write a value (")
            .and_then(|(_, rest)| rest.split_once(')'))
            .map(|(values, _)| values)
            .expect("the message lists the values");
        let mut said: Vec<String> = Vec::new();
        for value in listed.split(", ") {
            match value.split_once('-') {
                Some((low, high)) => {
                    let (low, high): (u8, u8) = (low.parse().unwrap(), high.parse().unwrap());
                    said.extend((low..=high).map(|v| v.to_string()));
                }
                None => said.push(value.to_string()),
            }
        }
        let spellings = ('0'..='9').chain('A'..='Z').flat_map(|first| {
            std::iter::once(first.to_string()).chain(
                ('0'..='9')
                    .chain('A'..='Z')
                    .map(move |second| format!("{first}{second}")),
            )
        });
        let mut read: Vec<String> = spellings
            .filter(|value| format!("{value}H").parse::<Card>().is_ok())
            .collect();
        said.sort();
        read.sort();
        assert_eq!(said, read, "{message}");
    }

    #[test]
    fn displays_with_suit_symbols() {
        assert_eq!(card("KH").to_string(), "K♥");
        assert_eq!(card("10c").to_string(), "10♣");
        assert_eq!(format_cards(&[card("AS"), card("2D")]), "A♠ 2♦".to_string());
    }

    #[test]
    fn suits_order_clubs_diamonds_hearts_spades() {
        assert!(Suit::Clubs < Suit::Diamonds);
        assert!(Suit::Diamonds < Suit::Hearts);
        assert!(Suit::Hearts < Suit::Spades);
    }

    #[test]
    fn index_round_trips_over_the_whole_deck() {
        for index in 0..52u8 {
            assert_eq!(Card::from_index(index).unwrap().index(), index);
        }
        assert_eq!(Card::from_index(52), None);
        assert_eq!(card("2C").index(), 0);
        assert_eq!(card("AS").index(), 51);
    }
}
