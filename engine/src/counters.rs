//! The one-declaration macro for a model's counters: a list of documented `u64` fields, each
//! with its unit, becomes the struct, its addition (`+`, `+=`), its named CSV columns and the
//! table of their names, units and docs ([`Column`]) that help, glossaries and the docs' column
//! tables are written from. A new counter is one line in its model's declaration (the
//! timeline's `Counters`, the load model's `LoadCounts`).

/// One declared output column: its name (the CSV header and the JSON key), its unit and its
/// doc, as written in the declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The column's name, e.g. `double_charged_payments`.
    pub name: &'static str,
    /// What one unit of it counts, e.g. `payments`.
    pub unit: &'static str,
    /// The lines of its `///` doc.
    pub doc: &'static [&'static str],
}

impl Column {
    /// The doc as one paragraph.
    pub fn description(&self) -> String {
        self.doc
            .iter()
            .map(|line| line.trim())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Declares a counters struct: every field a `u64` count with its `///` doc (meaning) and its
/// unit (`name: "unit",`), in CSV column order; then, optionally, a `trailing { ... }` group of
/// counters that the reports write apart, after other columns (the timeline's backend
/// counters, the load model's `events`). The struct gets `Default`, `Add`, `AddAssign` (field
/// by field, so sums merge exactly in any grouping), serde's `Serialize` and `Deserialize` (the
/// caller's crate depends on `serde`), `columns()` (every counter as `(name,
/// value)` in order, the trailing group last), `COLUMNS` (every counter's [`Column`], in the
/// same order) and `TRAILING_COLUMNS` (how many of those are trailing).
#[macro_export]
macro_rules! counters {
    (
        $(#[doc = $struct_doc:literal])+
        pub struct $counters:ident {
            $( $(#[doc = $doc:literal])+ $name:ident: $unit:literal, )+
        }
        $( trailing {
            $( $(#[doc = $trailing_doc:literal])+ $trailing_name:ident: $trailing_unit:literal, )+
        } )?
    ) => {
        $(#[doc = $struct_doc])+
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        #[derive(::serde::Serialize, ::serde::Deserialize)]
        pub struct $counters {
            $( $(#[doc = $doc])+ #[doc = concat!("\n\nUnit: ", $unit, ".")] pub $name: u64, )+
            $( $( $(#[doc = $trailing_doc])+ #[doc = concat!("\n\nUnit: ", $trailing_unit, ".")]
                pub $trailing_name: u64, )+ )?
        }

        impl ::std::ops::AddAssign for $counters {
            fn add_assign(&mut self, other: Self) {
                $( self.$name += other.$name; )+
                $( $( self.$trailing_name += other.$trailing_name; )+ )?
            }
        }

        impl ::std::ops::Add for $counters {
            type Output = $counters;

            fn add(mut self, other: $counters) -> $counters {
                self += other;
                self
            }
        }

        impl $counters {
            /// Every counter as `(column name, value)`, in column order, the trailing group
            /// ([`Self::TRAILING_COLUMNS`] of them) last.
            pub fn columns(&self) -> impl Iterator<Item = (&'static str, u64)> + use<> {
                [
                    $( (stringify!($name), self.$name), )+
                    $( $( (stringify!($trailing_name), self.$trailing_name), )+ )?
                ]
                .into_iter()
            }

            /// Every counter's name, unit and doc, in column order, the trailing group last.
            pub const COLUMNS: &'static [$crate::counters::Column] = &[
                $( $crate::counters::Column {
                    name: stringify!($name),
                    unit: $unit,
                    doc: &[$($doc),+],
                }, )+
                $( $( $crate::counters::Column {
                    name: stringify!($trailing_name),
                    unit: $trailing_unit,
                    doc: &[$($trailing_doc),+],
                }, )+ )?
            ];

            /// How many of the [`Self::columns`] (the last ones) form the trailing group.
            pub const TRAILING_COLUMNS: usize =
                <[&str]>::len(&[$( $( stringify!($trailing_name), )+ )?]);
        }
    };
}

#[cfg(test)]
mod tests {
    crate::counters! {
        /// Two counters and a trailing one.
        pub struct Sample {
            /// First.
            first: "things",
            /// Second, over
            /// two lines.
            second: "things",
        }
        trailing {
            /// Last.
            last: "others",
        }
    }

    crate::counters! {
        /// No trailing group.
        pub struct Plain {
            /// Only.
            only: "things",
        }
    }

    #[test]
    fn fields_add_and_are_columns_in_order() {
        let one = Sample {
            first: 1,
            second: 2,
            last: 3,
        };
        let mut sum = one + one;
        sum += one;
        assert_eq!(
            sum,
            Sample {
                first: 3,
                second: 6,
                last: 9
            }
        );
        let columns: Vec<_> = sum.columns().collect();
        assert_eq!(columns, [("first", 3), ("second", 6), ("last", 9)]);
        assert_eq!(Sample::TRAILING_COLUMNS, 1);
        let declared: Vec<_> = Sample::COLUMNS
            .iter()
            .map(|column| (column.name, column.unit, column.description()))
            .collect();
        assert_eq!(
            declared,
            [
                ("first", "things", "First.".to_string()),
                ("second", "things", "Second, over two lines.".to_string()),
                ("last", "others", "Last.".to_string()),
            ]
        );
        assert_eq!(Plain::TRAILING_COLUMNS, 0);
        assert_eq!(Plain::COLUMNS[0].unit, "things");
        assert_eq!(
            Plain { only: 4 }.columns().collect::<Vec<_>>(),
            [("only", 4)]
        );
    }
}
