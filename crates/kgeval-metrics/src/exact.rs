//! Exact summation of `f64` values: a fixed-point superaccumulator whose value does not depend
//! on the order of the additions nor on how they were split and merged, rounded once (to
//! nearest, ties to even) when read. What the mergeable summaries ([`crate::trec::accumulate`])
//! add their per-topic values with.
//!
//! Every finite `f64` is an integer multiple of 2⁻¹⁰⁷⁴; the sum is kept as that integer, in 32-bit
//! digits held in `i64` limbs so that carries wait (2³⁰ additions between normalisations).
//! After [`normalize`](ExactSum::normalize) the digits are canonical (each but the top one in
//! 0 ≤ d < 2³²), so two sums of the same multiset of values are equal field by field and
//! serialise to the same bytes. ±∞ and NaN are summed apart, as IEEE arithmetic sums them (their
//! sum does not depend on the order either).
//!
//! ```
//! use kgeval_metrics::exact::ExactSum;
//! let values = [1e16, 1.0, -1e16, 0.1];
//! let mut left = ExactSum::new();
//! for v in values {
//!     left.add(v);
//! }
//! let mut right = ExactSum::new();
//! for v in values.iter().rev() {
//!     right.add(*v);
//! }
//! // Sequential f64 sums lose the 1.0; the exact sum does not, in any order.
//! assert_eq!(values.iter().sum::<f64>(), 0.1);
//! assert_eq!(left.value(), 1.1);
//! left.normalize();
//! right.normalize();
//! assert_eq!(left, right);
//! assert_eq!(left.mean(2), 0.55);
//! ```

/// Limbs of 32 bits: 2⁻¹⁰⁷⁴ … 2¹⁰²⁴ spans 2098 bits, plus headroom for the carries of 2⁶⁴
/// values of the largest magnitude.
const LIMBS: usize = 70;

/// Additions between two normalisations: each changes a limb by less than 2³², so 2³⁰ of them
/// stay far from `i64`'s range.
const PENDING_LIMIT: u32 = 1 << 30;

/// An exact sum of `f64` values (see the module's text).
#[derive(Debug, Clone)]
pub struct ExactSum {
    limbs: [i64; LIMBS],
    pending: u32,
    /// The sum of the non-finite values (0.0 when there was none).
    special: f64,
}

impl Default for ExactSum {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for ExactSum {
    /// Equal iff the exact values are equal (whatever the carries pending).
    fn eq(&self, other: &Self) -> bool {
        let (mut a, mut b) = (self.clone(), other.clone());
        a.normalize();
        b.normalize();
        a.limbs == b.limbs && a.special.to_bits() == b.special.to_bits()
    }
}

impl ExactSum {
    /// The empty sum (0).
    #[must_use]
    pub const fn new() -> Self {
        ExactSum { limbs: [0; LIMBS], pending: 0, special: 0.0 }
    }

    /// Adds `value` exactly.
    pub fn add(&mut self, value: f64) {
        if !value.is_finite() {
            self.special += value;
            return;
        }
        if value == 0.0 {
            return;
        }
        let bits = value.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as u32;
        let fraction = bits & ((1 << 52) - 1);
        // value = mantissa × 2^(shift − 1074).
        let (mantissa, shift) = if exponent == 0 { (fraction, 0) } else { (fraction | (1 << 52), exponent - 1) };
        let (limb, offset) = ((shift / 32) as usize, shift % 32);
        let wide = u128::from(mantissa) << offset;
        let sign = if value < 0.0 { -1 } else { 1 };
        for (i, slot) in self.limbs[limb..].iter_mut().take(3).enumerate() {
            let digit = ((wide >> (32 * i)) & 0xffff_ffff) as i64;
            *slot += sign * digit;
        }
        self.pending += 1;
        if self.pending >= PENDING_LIMIT {
            self.normalize();
        }
    }

    /// Adds every value of `other` (exactly: the result is the sum of both multisets).
    pub fn merge(&mut self, other: &ExactSum) {
        self.normalize();
        let mut other = other.clone();
        other.normalize();
        for (a, b) in self.limbs.iter_mut().zip(other.limbs) {
            *a += b;
        }
        self.special += other.special;
        self.pending = 1;
        self.normalize();
    }

    /// Propagates the carries: every limb but the top one in 0 ≤ d < 2³², the top one
    /// signed. The canonical form, which [`to_bytes`](Self::to_bytes) writes.
    pub fn normalize(&mut self) {
        if self.pending == 0 {
            return;
        }
        for i in 0..LIMBS - 1 {
            let carry = self.limbs[i] >> 32;
            self.limbs[i] -= carry << 32;
            self.limbs[i + 1] += carry;
        }
        self.pending = 0;
    }

    /// The sign and the magnitude as 32-bit digits, least significant first.
    fn magnitude(&self) -> (bool, Vec<u32>) {
        let mut sum = self.clone();
        sum.pending = 1;
        sum.normalize();
        let negative = sum.limbs[LIMBS - 1] < 0;
        if negative {
            for limb in &mut sum.limbs {
                *limb = -*limb;
            }
            sum.pending = 1;
            sum.normalize();
        }
        let mut digits: Vec<u32> = sum.limbs[..LIMBS - 1].iter().map(|&d| d as u32).collect();
        let top = sum.limbs[LIMBS - 1] as u64;
        digits.extend([top as u32, (top >> 32) as u32]);
        while digits.last() == Some(&0) {
            digits.pop();
        }
        (negative, digits)
    }

    /// The sum, correctly rounded to `f64` (to nearest, ties to even); 0.0 for the empty sum.
    #[must_use]
    pub fn value(&self) -> f64 {
        if self.special != 0.0 {
            return self.special;
        }
        let (negative, digits) = self.magnitude();
        round(&digits, false, -1074, negative)
    }

    /// The sum divided by `n`, correctly rounded (one rounding of the exact quotient); 0.0 when
    /// `n` is 0.
    #[must_use]
    pub fn mean(&self, n: u64) -> f64 {
        if n == 0 {
            return 0.0;
        }
        if self.special != 0.0 {
            return self.special / n as f64;
        }
        let (negative, mut digits) = self.magnitude();
        // Four zero digits below: the quotient keeps ≥ 64 significant bits.
        digits.splice(0..0, [0; 4]);
        let mut remainder: u128 = 0;
        for digit in digits.iter_mut().rev() {
            let current = (remainder << 32) | u128::from(*digit);
            *digit = (current / u128::from(n)) as u32;
            remainder = current % u128::from(n);
        }
        while digits.last() == Some(&0) {
            digits.pop();
        }
        round(&digits, remainder != 0, -1074 - 128, negative)
    }

    /// The canonical bytes: the limb range holding the value (first index `u16`, count `u16`,
    /// then each limb as `i64`, little-endian), then the non-finite sum's `f64` bits.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut sum = self.clone();
        sum.pending = 1;
        sum.normalize();
        let first = sum.limbs.iter().position(|&l| l != 0).unwrap_or(0);
        let last = sum.limbs.iter().rposition(|&l| l != 0).map_or(0, |l| l + 1);
        let count = last.saturating_sub(first);
        let mut out = Vec::with_capacity(12 + 8 * count);
        out.extend_from_slice(&(first as u16).to_le_bytes());
        out.extend_from_slice(&(count as u16).to_le_bytes());
        for limb in &sum.limbs[first..first + count] {
            out.extend_from_slice(&limb.to_le_bytes());
        }
        out.extend_from_slice(&sum.special.to_bits().to_le_bytes());
        out
    }

    /// Reads [`to_bytes`](Self::to_bytes)' layout from the front of `bytes`; returns the sum and
    /// the bytes read, or `None` when they are not that layout (or not canonical).
    #[must_use]
    pub fn from_bytes(bytes: &[u8]) -> Option<(Self, usize)> {
        let word = |at: usize| -> Option<u16> { Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?)) };
        let long = |at: usize| -> Option<[u8; 8]> { bytes.get(at..at + 8)?.try_into().ok() };
        let (first, count) = (usize::from(word(0)?), usize::from(word(2)?));
        if first + count > LIMBS {
            return None;
        }
        let mut sum = ExactSum::new();
        for i in 0..count {
            sum.limbs[first + i] = i64::from_le_bytes(long(4 + 8 * i)?);
        }
        let end = 4 + 8 * count;
        sum.special = f64::from_bits(u64::from_le_bytes(long(end)?));
        let canonical = sum.limbs[..LIMBS - 1].iter().all(|&l| (0..1 << 32).contains(&l));
        canonical.then_some((sum, end + 8))
    }
}

/// `±(D + ε) · 2^scale` rounded to the nearest `f64` (ties to even), where `D` is `digits`
/// (32-bit, least significant first) and 0 < ε < 1 iff `sticky`. `D` must keep at least
/// 2⁻¹⁰⁷⁴'s bit, so that ε only ever decides a tie.
fn round(digits: &[u32], sticky: bool, scale: i32, negative: bool) -> f64 {
    let bit = |i: i64| -> bool { i >= 0 && digits.get((i / 32) as usize).is_some_and(|d| d >> (i % 32) & 1 == 1) };
    let Some(top) = (0..digits.len() as i64 * 32).rev().find(|&i| bit(i)) else {
        return 0.0;
    };
    // The lowest kept bit: 53 significant bits, but never below 2^-1074.
    let mut cut = (top - 52).max(-1074 - i64::from(scale)).max(0);
    let mut mantissa: u64 = 0;
    for i in (cut..=top).rev() {
        mantissa = (mantissa << 1) | u64::from(bit(i));
    }
    let half = cut > 0 && bit(cut - 1);
    let below = sticky || (0..cut - 1).any(bit);
    if half && (below || mantissa & 1 == 1) {
        mantissa += 1;
        if mantissa == 1 << 53 {
            mantissa >>= 1;
            cut += 1;
        }
    }
    let exponent = cut + i64::from(scale);
    let magnitude = if mantissa < 1 << 52 {
        // Subnormal: the exponent is 2^-1074's.
        f64::from_bits(mantissa)
    } else {
        let biased = exponent + 52 + 1023;
        if biased >= 0x7ff {
            f64::INFINITY
        } else {
            f64::from_bits(((biased as u64) << 52) | (mantissa - (1 << 52)))
        }
    };
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn sum_of(values: &[f64]) -> ExactSum {
        let mut sum = ExactSum::new();
        for &v in values {
            sum.add(v);
        }
        sum
    }

    fn finite() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>().prop_filter("finite", |v| v.is_finite()),
            -1.0..1.0f64,
            (0u64..1 << 20).prop_map(f64::from_bits),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha, rng_seed: proptest::test_runner::RngSeed::Fixed(30), failure_persistence: None, ..ProptestConfig::default() })]

        /// IEEE addition and division are correctly rounded: one value or two must match them.
        #[test]
        fn two_values_round_like_ieee(a in finite(), b in finite(), n in 1u64..1000) {
            // A zero sum is +0.0 (IEEE gives −0.0 for −0.0 + −0.0).
            prop_assert_eq!(sum_of(&[a, b]).value().to_bits(), (a + b + 0.0).to_bits());
            prop_assert_eq!(sum_of(&[a]).mean(n).to_bits(), (a / n as f64 + 0.0).to_bits());
        }

        /// Order and split do not change the canonical bytes.
        #[test]
        fn order_and_split_are_invisible(values in proptest::collection::vec(finite(), 0..40), cut in 0usize..40) {
            let forward = sum_of(&values);
            let reversed: Vec<f64> = values.iter().rev().copied().collect();
            let cut = cut.min(values.len());
            let mut merged = sum_of(&values[cut..]);
            merged.merge(&sum_of(&values[..cut]));
            prop_assert_eq!(forward.to_bytes(), sum_of(&reversed).to_bytes());
            prop_assert_eq!(forward.to_bytes(), merged.to_bytes());
            let (back, read) = ExactSum::from_bytes(&forward.to_bytes()).expect("reads");
            prop_assert_eq!(read, forward.to_bytes().len());
            prop_assert_eq!(back.value().to_bits(), forward.value().to_bits());
            prop_assert_eq!(back, forward);
        }
    }

    #[test]
    fn cancellation_zero_and_specials() {
        assert_eq!(sum_of(&[]).value().to_bits(), 0.0f64.to_bits());
        assert_eq!(sum_of(&[0.1, -0.1]).value().to_bits(), 0.0f64.to_bits());
        assert_eq!(sum_of(&[f64::MAX, f64::MAX, -f64::MAX]).value(), f64::MAX);
        assert_eq!(sum_of(&[f64::MAX, f64::MAX]).value(), f64::INFINITY);
        assert!(sum_of(&[f64::INFINITY, 1.0, f64::NEG_INFINITY]).value().is_nan());
        assert_eq!(sum_of(&[f64::from_bits(1), f64::from_bits(1)]).value(), f64::from_bits(2));
        // 0.1 × 10 is exactly 10 × 0.1's binary value, which rounds to 1.0.
        assert_eq!(sum_of(&[0.1; 10]).value(), 1.0);
        assert_eq!(sum_of(&[0.1; 10]).mean(10), 0.1);
        assert_eq!(sum_of(&[1.0, 2.0]).mean(3), 1.0);
        assert_eq!(sum_of(&[-1.0, -2.0, -4.0]).mean(3), -7.0 / 3.0);
        assert!(ExactSum::from_bytes(&[1, 2]).is_none());
    }
}
