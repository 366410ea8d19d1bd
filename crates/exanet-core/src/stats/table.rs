//! Column tables and the flat summary: what a run hands back to Python.

/// One column's values.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnData {
    U32(Vec<u32>),
    I32(Vec<i32>),
    U64(Vec<u64>),
    F64(Vec<f64>),
}

impl ColumnData {
    /// The entries at `rows`, in that order.
    pub fn select(&self, rows: &[u32]) -> ColumnData {
        fn pick<T: Copy>(values: &[T], rows: &[u32]) -> Vec<T> {
            rows.iter().map(|&r| values[r as usize]).collect()
        }
        match self {
            ColumnData::U32(v) => ColumnData::U32(pick(v, rows)),
            ColumnData::I32(v) => ColumnData::I32(pick(v, rows)),
            ColumnData::U64(v) => ColumnData::U64(pick(v, rows)),
            ColumnData::F64(v) => ColumnData::F64(pick(v, rows)),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            ColumnData::U32(v) => v.len(),
            ColumnData::I32(v) => v.len(),
            ColumnData::U64(v) => v.len(),
            ColumnData::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// numpy dtype string of the column.
    pub fn dtype(&self) -> &'static str {
        match self {
            ColumnData::U32(_) => "<u4",
            ColumnData::I32(_) => "<i4",
            ColumnData::U64(_) => "<u8",
            ColumnData::F64(_) => "<f8",
        }
    }

    /// Little-endian bytes of the values.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        fn collect<const N: usize, T: Copy>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
            v.iter().flat_map(|&x| f(x)).collect()
        }
        match self {
            ColumnData::U32(v) => collect(v, u32::to_le_bytes),
            ColumnData::I32(v) => collect(v, i32::to_le_bytes),
            ColumnData::U64(v) => collect(v, u64::to_le_bytes),
            ColumnData::F64(v) => collect(v, f64::to_le_bytes),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: &'static str,
    pub data: ColumnData,
    /// When set, the values are integer codes into these labels.
    pub categories: Option<Vec<String>>,
}

/// Named columns of equal length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<Column>,
}

impl Table {
    pub fn push(&mut self, name: &'static str, data: ColumnData) {
        debug_assert!(
            self.columns
                .first()
                .is_none_or(|c| c.data.len() == data.len()),
            "column {name} has another length than the table"
        );
        self.columns.push(Column {
            name,
            data,
            categories: None,
        });
    }

    pub fn push_categorical(&mut self, name: &'static str, codes: Vec<u32>, labels: Vec<String>) {
        self.push(name, ColumnData::U32(codes));
        if let Some(column) = self.columns.last_mut() {
            column.categories = Some(labels);
        }
    }

    pub fn column(&self, name: &str) -> Option<&ColumnData> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .map(|c| &c.data)
    }
}

/// A summary value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    U64(u64),
    F64(f64),
    Bool(bool),
    Str(String),
}

/// Ordered (name, value) pairs; names carry their units.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub entries: Vec<(&'static str, Value)>,
}

impl Summary {
    pub fn set(&mut self, name: &'static str, value: Value) {
        self.entries.push((name, value));
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
    }

    /// A numeric entry as f64 (panics on a missing or non-numeric key: for tests and tools).
    pub fn f64(&self, name: &str) -> f64 {
        match self.get(name) {
            Some(Value::U64(v)) => *v as f64,
            Some(Value::F64(v)) => *v,
            other => panic!("summary key {name} is not numeric: {other:?}"),
        }
    }

    pub fn u64(&self, name: &str) -> u64 {
        match self.get(name) {
            Some(Value::U64(v)) => *v,
            other => panic!("summary key {name} is not an integer: {other:?}"),
        }
    }
}
