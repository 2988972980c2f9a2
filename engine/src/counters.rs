//! The one-declaration macro for a model's counters: a list of documented `u64` fields becomes
//! the struct, its addition (`+`, `+=`) and its named CSV columns, so a new counter is one line
//! in its model's declaration (the timeline's `Counters`, the load model's `LoadCounts`).

/// Declares a counters struct: every field a `u64` count with its `///` doc (meaning and unit),
/// in CSV column order; then, optionally, a `trailing { ... }` group of counters that the
/// reports write apart, after other columns (the timeline's backend counters, the load
/// model's `events`). The struct gets `Default`, `Add`, `AddAssign` (field by field, so sums
/// merge exactly in any grouping), `columns()` (every counter as `(name, value)` in order,
/// the trailing group last) and `TRAILING_COLUMNS` (how many of those are trailing).
#[macro_export]
macro_rules! counters {
    (
        $(#[doc = $struct_doc:literal])+
        pub struct $counters:ident {
            $( $(#[doc = $doc:literal])+ $name:ident, )+
        }
        $( trailing {
            $( $(#[doc = $trailing_doc:literal])+ $trailing_name:ident, )+
        } )?
    ) => {
        $(#[doc = $struct_doc])+
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $counters {
            $( $(#[doc = $doc])+ pub $name: u64, )+
            $( $( $(#[doc = $trailing_doc])+ pub $trailing_name: u64, )+ )?
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
            /// First (things).
            first,
            /// Second (things).
            second,
        }
        trailing {
            /// Last (things).
            last,
        }
    }

    crate::counters! {
        /// No trailing group.
        pub struct Plain {
            /// Only (things).
            only,
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
        assert_eq!(Plain::TRAILING_COLUMNS, 0);
        assert_eq!(
            Plain { only: 4 }.columns().collect::<Vec<_>>(),
            [("only", 4)]
        );
    }
}
