//! [`record!`]: a record of CSV columns declared once, each field with its doc (meaning), its
//! kind and its unit, as [`Steady`](super::Steady) and [`Bucket`](super::Bucket) are. The
//! kinds are the variants of the record's value enum, declared in the same place, each with
//! the Rust type of a field of that kind.

/// Declares a record and its value enum once: the enum's variants (one per kind of field,
/// each wrapping the field's type), the record's fields in column order (doc, name, kind,
/// unit), and `columns` (every field as `(column name, value)`) and `COLUMNS` (every field's
/// name, unit and doc).
macro_rules! record {
    (
        $(#[doc = $record_doc:literal])+
        pub struct $record:ident {
            $( $(#[doc = $doc:literal])+ $name:ident: $kind:ident $unit:literal, )+
        }
        $(#[doc = $value_doc:literal])+
        pub enum $value:ident {
            $( $(#[doc = $kind_doc:literal])+ $variant:ident($type:ty), )+
        }
    ) => {
        $(#[doc = $value_doc])+
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum $value {
            $( $(#[doc = $kind_doc])+ $variant($type), )+
        }

        /// The Rust type of each kind of field, named after its variant.
        #[allow(non_camel_case_types, dead_code)]
        mod kind {
            $( pub type $variant = $type; )+
        }

        $(#[doc = $record_doc])+
        #[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        pub struct $record {
            $( $(#[doc = $doc])+ #[doc = concat!("\n\nUnit: ", $unit, ".")]
               pub $name: kind::$kind, )+
        }

        impl $record {
            /// Every field as `(column name, value)`, in column order.
            pub fn columns(&self) -> impl Iterator<Item = (&'static str, $value)> + use<> {
                [$( (stringify!($name), $value::$kind(self.$name)), )+].into_iter()
            }

            /// Every field's name, unit and doc, in column order.
            pub const COLUMNS: &'static [engine::counters::Column] = &[
                $( engine::counters::Column {
                    name: stringify!($name),
                    unit: $unit,
                    doc: &[$($doc),+],
                }, )+
            ];
        }
    };
}

pub(super) use record;
