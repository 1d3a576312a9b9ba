//! The values Maestro's `inputRandom…` commands type: text, numbers, e-mail addresses and
//! person names, made up when the step runs.

use super::model::RandomKind;

/// Characters of a text or number when the flow gives no `length` (Maestro's 8).
pub const DEFAULT_LENGTH: usize = 8;
/// Most characters one command types.
pub const MAX_LENGTH: usize = 1000;

const FIRST: &[&str] = &[
    "Ada", "Alan", "Amara", "Ana", "Chen", "Diego", "Emma", "Farah", "Grace", "Hiro", "Ines",
    "Jonas", "Kofi", "Lena", "Liam", "Maya", "Noah", "Olga", "Priya", "Ravi", "Sofia", "Tariq",
    "Yara", "Zoe",
];
const LAST: &[&str] = &[
    "Adeyemi", "Berg", "Costa", "Dubois", "Evans", "Fischer", "Garcia", "Hughes", "Ito", "Jensen",
    "Kim", "Lopez", "Moreau", "Novak", "Okafor", "Patel", "Quinn", "Rossi", "Silva", "Tanaka",
    "Urban", "Varga", "Weber", "Young",
];
const ALPHANUMERIC: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

/// A value of `kind`; `length` characters for text and numbers.
pub fn value(kind: RandomKind, length: usize) -> String {
    let mut rng = fastrand::Rng::new();
    match kind {
        RandomKind::Text => (0..length)
            .map(|_| char::from(ALPHANUMERIC[rng.usize(..ALPHANUMERIC.len())]))
            .collect(),
        RandomKind::Number => (0..length)
            .map(|i| {
                let low = if i == 0 { 1 } else { 0 };
                char::from(b'0' + rng.u8(low..10))
            })
            .collect(),
        RandomKind::Email => format!(
            "{}.{}{}@example.com",
            pick(&mut rng, FIRST).to_lowercase(),
            pick(&mut rng, LAST).to_lowercase(),
            rng.u16(10..1000)
        ),
        RandomKind::PersonName => format!("{} {}", pick(&mut rng, FIRST), pick(&mut rng, LAST)),
    }
}

fn pick<'a>(rng: &mut fastrand::Rng, from: &[&'a str]) -> &'a str {
    from[rng.usize(..from.len())]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_shape() {
        for _ in 0..200 {
            let t = value(RandomKind::Text, 12);
            assert_eq!(t.len(), 12);
            assert!(t.bytes().all(|b| ALPHANUMERIC.contains(&b)), "{t}");
            let n = value(RandomKind::Number, 5);
            assert_eq!(n.len(), 5);
            assert!(
                n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0'),
                "{n}"
            );
            let e = value(RandomKind::Email, 0);
            let (user, domain) = e.split_once('@').expect("an address");
            assert_eq!(domain, "example.com");
            assert!(user.contains('.') && user.is_ascii(), "{e}");
            let p = value(RandomKind::PersonName, 0);
            let (first, last) = p.split_once(' ').expect("two names");
            assert!(FIRST.contains(&first) && LAST.contains(&last), "{p}");
        }
        // Made up each time: 200 texts of 12 characters do not repeat.
        let texts: std::collections::BTreeSet<String> =
            (0..200).map(|_| value(RandomKind::Text, 12)).collect();
        assert_eq!(texts.len(), 200);
    }
}
