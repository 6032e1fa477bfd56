//! Small text helpers every module of the api may use, whatever its floor: the lowest
//! room of the house, importing nothing of the crate.

/// 2598960 as 2,598,960.
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `text` cut to `limit` characters, saying how much was left out.
pub fn shorten(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_string(),
        Some((cut, _)) => format!(
            "{}… ({} more characters)",
            &text[..cut],
            text[cut..].chars().count()
        ),
    }
}

/// The one of `known` that `word` is most likely a misspelling of: at most a third of its
/// letters away, at least one.
#[doc(hidden)]
pub fn nearest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    let most = (word.chars().count() / 3).max(1);
    known
        .iter()
        .map(|&candidate| (edits(word, candidate), candidate))
        .filter(|&(distance, _)| distance <= most)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// Letters to insert, delete, replace or swap with a neighbour to turn `a` into `b`.
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows of the table: two rows back are needed for a swap.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut current = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let replace = previous[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            current[j] = replace.min(previous[j] + 1).min(current[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                current[j] = current[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut previous, current);
    }
    previous[b.len()]
}

/// Reads a scalar with its `FromStr`. The error is raised inside the visitor, so it keeps
/// the scalar's line and column; raised after the scalar is read, it would get its mapping's.
#[cfg(feature = "spec")]
pub(crate) fn from_text<'de, D, T>(deserializer: D, expecting: &'static str) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr<Err: std::fmt::Display>,
{
    struct Text<T>(&'static str, std::marker::PhantomData<T>);
    impl<T: std::str::FromStr<Err: std::fmt::Display>> serde::de::Visitor<'_> for Text<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<T, E> {
            text.parse().map_err(E::custom)
        }
    }
    deserializer.deserialize_str(Text(expecting, std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_is_named_and_a_stranger_is_not() {
        let known = ["points", "name", "hint", "has_pair", "has_straight"];
        assert_eq!(nearest("pionts", &known), Some("points"));
        assert_eq!(nearest("has_straihgt", &known), Some("has_straight"));
        assert_eq!(nearest("has_pairs", &known), Some("has_pair"));
        assert_eq!(nearest("nmae", &known), Some("name"));
        assert_eq!(nearest("weight", &known), None);
        assert_eq!(nearest("x", &known), None);
    }

    #[test]
    fn digits_are_grouped() {
        assert_eq!(group_digits(2_598_960), "2,598,960");
        assert_eq!(group_digits(999), "999");
        assert_eq!(group_digits(1000), "1,000");
    }
}
