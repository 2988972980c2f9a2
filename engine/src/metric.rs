//! The one-declaration macro for the quantities a model summarises across runs
//! ([`metrics!`](crate::metrics)): each variant with its column name, its kind (how its
//! interval is computed), its unit and its doc, from which the summary's rows, its CSV and
//! JSON names, the glossaries and the docs' tables are written.

pub use crate::counters::Column;

/// How a summarised quantity is estimated, which decides its interval's method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A share of units with a property (a 0/1 indicator per unit): a score interval.
    Proportion,
    /// A mean of a quantity per unit or per run: a t interval.
    Mean,
}

impl Kind {
    /// Its name in outputs (`proportion`, `mean`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Proportion => "proportion",
            Kind::Mean => "mean",
        }
    }
}

/// Declares a fieldless enum of summarised quantities: every variant with its `///` doc and
/// `= "column_name": kind "unit"` (`kind` is `proportion` or `mean`, see [`Kind`]), in report
/// order. The enum gets `ALL` (every variant in order), `name()`, `kind()`, `unit()`,
/// `column()` (its [`Column`]) and `COLUMNS` (every variant's, in order).
#[macro_export]
macro_rules! metrics {
    (
        $(#[doc = $enum_doc:literal])+
        pub enum $metric:ident {
            $( $(#[doc = $doc:literal])+ $variant:ident = $name:literal: $kind:ident $unit:literal, )+
        }
    ) => {
        $(#[doc = $enum_doc])+
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $metric {
            $( $(#[doc = $doc])+ #[doc = concat!("\n\nColumn `", $name, "`, unit: ", $unit, ".")]
                $variant, )+
        }

        impl $metric {
            /// Every variant, in the order reported.
            pub const ALL: &'static [$metric] = &[$( $metric::$variant, )+];

            /// Every variant's name, unit and doc, in the order reported.
            pub const COLUMNS: &'static [$crate::counters::Column] = &[
                $( $crate::counters::Column { name: $name, unit: $unit, doc: &[$($doc),+] }, )+
            ];

            /// Its name in the outputs.
            pub fn name(self) -> &'static str {
                self.column().name
            }

            /// Its unit.
            pub fn unit(self) -> &'static str {
                self.column().unit
            }

            /// Its name, unit and doc.
            pub fn column(self) -> &'static $crate::counters::Column {
                &Self::COLUMNS[self as usize]
            }

            /// How it is estimated (which decides its interval).
            pub fn kind(self) -> $crate::metric::Kind {
                match self {
                    $( $metric::$variant => $crate::metrics!(@kind $kind), )+
                }
            }
        }
    };
    (@kind proportion) => { $crate::metric::Kind::Proportion };
    (@kind mean) => { $crate::metric::Kind::Mean };
}

#[cfg(test)]
mod tests {
    use super::Kind;

    crate::metrics! {
        /// Two quantities.
        pub enum Sample {
            /// A share.
            Share = "share": proportion "units",
            /// A mean over
            /// two lines.
            Average = "average_ms": mean "ms",
        }
    }

    #[test]
    fn variants_carry_their_declaration() {
        assert_eq!(Sample::ALL, [Sample::Share, Sample::Average]);
        assert_eq!(Sample::Share.name(), "share");
        assert_eq!(Sample::Average.name(), "average_ms");
        assert_eq!(Sample::Average.unit(), "ms");
        assert_eq!(Sample::Share.kind(), Kind::Proportion);
        assert_eq!(Sample::Average.kind(), Kind::Mean);
        assert_eq!(
            Sample::Average.column().description(),
            "A mean over two lines."
        );
    }
}
