//! Points in hundredths, as every score is counted, printed and written.

use serde::Serialize;

/// Points in hundredths: every score printed or written is rounded once, here, to two
/// decimals, and adds up exactly, so a perfect run is the maximum and never 599.99….
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Points(pub(super) u64);

impl Points {
    pub const ZERO: Points = Points(0);

    /// `value`, 0 or more, rounded to two decimals.
    pub fn from_f64(value: f64) -> Points {
        // `as` saturates: a negative or NaN value is 0.
        Points((value * 100.0).round() as u64)
    }

    /// The nearest f64 to the two-decimal value, as JSON carries it; never -0.
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 100.0
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, other: Points) -> Points {
        Points(self.0 + other.0)
    }
}

impl std::iter::Sum for Points {
    fn sum<I: Iterator<Item = Points>>(points: I) -> Points {
        Points(points.map(|p| p.0).sum())
    }
}

/// 12.5 stays 12.5; 10.00 prints as 10.
impl std::fmt::Display for Points {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (whole, cents) = (self.0 / 100, self.0 % 100);
        match cents {
            0 => write!(f, "{whole}"),
            _ if cents % 10 == 0 => write!(f, "{whole}.{}", cents / 10),
            _ => write!(f, "{whole}.{cents:02}"),
        }
    }
}

impl Serialize for Points {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.as_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_print_without_needless_decimals() {
        assert_eq!(Points::from_f64(10.0).to_string(), "10");
        assert_eq!(Points::from_f64(2.5).to_string(), "2.5");
        assert_eq!(Points::from_f64(10.0 / 3.0).to_string(), "3.33");
        assert_eq!(Points::from_f64(3.05).to_string(), "3.05");
    }
}
