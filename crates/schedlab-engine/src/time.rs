//! Simulated time: integer nanoseconds, and the duration strings of the scenario format.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point in simulated time or a length of time, in integer nanoseconds.
///
/// Everything the engine decides is computed on `Nanos`; there is no floating point in time
/// arithmetic, so native and wasm runs agree bit for bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nanos(pub u64);

impl Nanos {
    pub const ZERO: Nanos = Nanos(0);

    /// Zero (for serde's `skip_serializing_if`).
    pub fn is_zero(&self) -> bool {
        self.0 == 0
    }
    pub const MAX: Nanos = Nanos(u64::MAX);

    pub const fn from_us(us: u64) -> Nanos {
        Nanos(us * 1_000)
    }
    pub const fn from_ms(ms: u64) -> Nanos {
        Nanos(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Nanos {
        Nanos(s * 1_000_000_000)
    }
    #[inline]
    pub const fn as_u64(self) -> u64 {
        self.0
    }
    #[inline]
    pub fn saturating_sub(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(rhs.0))
    }
    #[inline]
    pub fn saturating_add(self, rhs: Nanos) -> Nanos {
        Nanos(self.0.saturating_add(rhs.0))
    }
    #[inline]
    pub fn checked_add(self, rhs: Nanos) -> Option<Nanos> {
        self.0.checked_add(rhs.0).map(Nanos)
    }
    #[inline]
    pub fn checked_sub(self, rhs: Nanos) -> Option<Nanos> {
        self.0.checked_sub(rhs.0).map(Nanos)
    }
    /// Parses a duration for the field `field`, whose maximum is `max`; the error names both:
    /// `duration: "18446744073.9s" is more than the maximum, 86400s`.
    pub fn parse_field(text: &str, field: &str, max: Nanos) -> Result<Nanos, String> {
        let over = || format!("{field}: {text:?} is more than the maximum, {max}");
        match Nanos::parse_exact(text) {
            Ok(n) if n > max => Err(over()),
            Ok(n) => Ok(n),
            Err(ParseError::TooLarge) => Err(over()),
            Err(ParseError::Bad(e)) => Err(format!("{field}: {e}")),
        }
    }
    /// Parses `"10ms"`, `"2.5s"`, `"300us"`, `"40ns"`, `"0"`.
    ///
    /// Decimal fractions are parsed digit by digit into integers, never through `f64`.
    pub fn parse(text: &str) -> Result<Nanos, String> {
        Nanos::parse_exact(text).map_err(|e| match e {
            ParseError::TooLarge => format!(
                "duration {text:?} is too large: the largest time is {}",
                Nanos::MAX
            ),
            ParseError::Bad(e) => e,
        })
    }

    fn parse_exact(text: &str) -> Result<Nanos, ParseError> {
        let t = text.trim();
        if t == "0" {
            return Ok(Nanos::ZERO);
        }
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| {
                bad(format!(
                    "duration {text:?} has no unit (use ns, us, ms or s)"
                ))
            })?;
        let (num, unit) = t.split_at(split);
        let scale: u64 = match unit.trim() {
            "ns" => 1,
            "us" | "µs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            other => {
                return Err(bad(format!(
                    "duration {text:?} has unknown unit {other:?} (use ns, us, ms or s)"
                )))
            }
        };
        let (int_part, frac_part) = match num.split_once('.') {
            Some((i, f)) => (i, f),
            None => (num, ""),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return Err(bad(format!("duration {text:?} has no number")));
        }
        let nan = || bad(format!("duration {text:?} is not a number with a unit"));
        let int: u64 = if int_part.is_empty() {
            0
        } else {
            // Only digits are left: a parse error is an overflow.
            int_part.parse().map_err(|_| ParseError::TooLarge)?
        };
        let mut total = int.checked_mul(scale).ok_or(ParseError::TooLarge)?;
        let mut place = scale;
        for c in frac_part.chars() {
            let d = c.to_digit(10).ok_or_else(nan)? as u64;
            place /= 10;
            if place == 0 {
                if d != 0 {
                    return Err(bad(format!("duration {text:?} is finer than a nanosecond")));
                }
                continue;
            }
            total = total.checked_add(d * place).ok_or(ParseError::TooLarge)?;
        }
        Ok(Nanos(total))
    }
}

enum ParseError {
    TooLarge,
    Bad(String),
}

fn bad(e: String) -> ParseError {
    ParseError::Bad(e)
}

impl fmt::Display for Nanos {
    /// Shortest exact form in the largest unit that divides the value: `10ms`, `1500us`, `2s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v == 0 {
            return write!(f, "0ms");
        }
        for (scale, unit) in [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")] {
            if v % scale == 0 {
                return write!(f, "{}{}", v / scale, unit);
            }
        }
        write!(f, "{v}ns")
    }
}

// The operators are checked in every build, release and wasm included: a wrap would move
// simulated time backwards and give a wrong trace silently. Values a scenario controls are
// bounded by `scenario::limits`, and the engine adds them with `saturating_add` where a sum may
// lie past the end of any run, so these panics mark a bug, not bad input. They, and the small
// methods above, are `#[inline]` so that other crates (the policies) inline them without LTO.
impl Add for Nanos {
    type Output = Nanos;
    #[inline]
    #[track_caller]
    fn add(self, rhs: Nanos) -> Nanos {
        match self.0.checked_add(rhs.0) {
            Some(v) => Nanos(v),
            None => overflow("+", self, rhs),
        }
    }
}
impl AddAssign for Nanos {
    #[inline]
    #[track_caller]
    fn add_assign(&mut self, rhs: Nanos) {
        *self = *self + rhs;
    }
}
impl Sub for Nanos {
    type Output = Nanos;
    #[inline]
    #[track_caller]
    fn sub(self, rhs: Nanos) -> Nanos {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Nanos(v),
            None => overflow("-", self, rhs),
        }
    }
}
impl SubAssign for Nanos {
    #[inline]
    #[track_caller]
    fn sub_assign(&mut self, rhs: Nanos) {
        *self = *self - rhs;
    }
}

#[cold]
#[track_caller]
fn overflow(op: &str, a: Nanos, b: Nanos) -> ! {
    panic!("time arithmetic overflow: {}ns {op} {}ns", a.0, b.0)
}

/// Human-friendly rendering with a decimal point, for tables: `1.234 ms`.
pub fn pretty(n: Nanos) -> String {
    let v = n.0;
    if v >= 1_000_000_000 {
        format!(
            "{}.{:03} s",
            v / 1_000_000_000,
            (v % 1_000_000_000) / 1_000_000
        )
    } else if v >= 1_000_000 {
        format!("{}.{:03} ms", v / 1_000_000, (v % 1_000_000) / 1_000)
    } else if v >= 1_000 {
        format!("{}.{:03} us", v / 1_000, v % 1_000)
    } else {
        format!("{v} ns")
    }
}

impl Serialize for Nanos {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Nanos {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Nanos, D::Error> {
        let s = String::deserialize(d)?;
        Nanos::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_fractions_exactly() {
        assert_eq!(Nanos::parse("10ms"), Ok(Nanos(10_000_000)));
        assert_eq!(Nanos::parse("2.5s"), Ok(Nanos(2_500_000_000)));
        assert_eq!(Nanos::parse("0.75ms"), Ok(Nanos(750_000)));
        assert_eq!(Nanos::parse("300us"), Ok(Nanos(300_000)));
        assert_eq!(Nanos::parse("40ns"), Ok(Nanos(40)));
        assert_eq!(Nanos::parse("0"), Ok(Nanos(0)));
        assert!(Nanos::parse("10").unwrap_err().contains("no unit"));
        assert!(Nanos::parse("10 parsecs")
            .unwrap_err()
            .contains("unknown unit"));
        assert!(Nanos::parse("1.5ns").unwrap_err().contains("finer"));
        assert!(Nanos::parse("99999999999999s")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn a_fraction_that_overflows_is_an_error_not_a_wrap() {
        // 18446744073 s fits in u64 nanoseconds; .9 s more does not (it used to wrap to ~190 ms).
        let e = Nanos::parse("18446744073.9s").unwrap_err();
        assert!(e.contains("too large"), "{e}");
        assert!(e.contains(&Nanos::MAX.to_string()), "{e}");
        assert_eq!(
            Nanos::parse("18446744073.709551615s"),
            Ok(Nanos::MAX),
            "the largest value still parses"
        );
        let e =
            Nanos::parse_field("18446744073.9s", "duration", Nanos::from_secs(86400)).unwrap_err();
        assert!(e.starts_with("duration: "), "{e}");
        let e = Nanos::parse_field("25h", "duration", Nanos::from_secs(86400)).unwrap_err();
        assert!(e.contains("unknown unit"), "{e}");
        let e = Nanos::parse_field("86401s", "duration", Nanos::from_secs(86400)).unwrap_err();
        assert_eq!(e, "duration: \"86401s\" is more than the maximum, 86400s");
    }

    #[test]
    fn arithmetic_is_checked() {
        assert_eq!(Nanos::MAX.checked_add(Nanos(1)), None);
        assert_eq!(Nanos(1).checked_sub(Nanos(2)), None);
        assert_eq!(Nanos::MAX.saturating_add(Nanos(1)), Nanos::MAX);
        let r = std::panic::catch_unwind(|| Nanos::MAX + Nanos(1));
        assert!(r.is_err(), "an overflowing + must not wrap");
        let r = std::panic::catch_unwind(|| Nanos(1) - Nanos(2));
        assert!(r.is_err(), "time must not move backwards through -");
    }

    #[test]
    fn displays_round_trip() {
        for v in [
            0,
            1,
            999,
            1_000,
            1_500_000,
            2_000_000_000,
            10_000_000,
            123_456_789,
        ] {
            let n = Nanos(v);
            assert_eq!(Nanos::parse(&n.to_string()), Ok(n), "{n}");
        }
        assert_eq!(Nanos::from_ms(10).to_string(), "10ms");
        assert_eq!(pretty(Nanos(1_234_567)), "1.234 ms");
    }
}
