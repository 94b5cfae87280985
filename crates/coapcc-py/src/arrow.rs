//! Results columns ([`coapcc_sim::results::Columns`]) as an Arrow record batch, handed to
//! Python through the Arrow PyCapsule interface (`__arrow_c_stream__`): pyarrow imports the
//! buffers without copying them and without any text in between.

use std::ffi::CString;
use std::sync::Arc;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{ArrayRef, BooleanArray, Float64Array, RecordBatch, RecordBatchIterator, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use coapcc_sim::results::{Column, Columns};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// One results table: an Arrow record batch. `pyarrow.table(t)` (or
/// `pyarrow.RecordBatchReader.from_stream(t)`) imports it.
#[pyclass(module = "coapcc._coapcc", frozen)]
pub struct Table {
    batch: RecordBatch,
}

impl Table {
    /// The table of `columns`: text as `utf8`, counts as `uint64`, measurements as `float64`
    /// (NaN where the CSV field is empty), flags as `bool`; counts that may be absent as a
    /// nullable `uint64` field (null where the CSV field is empty).
    pub fn new(columns: &Columns) -> PyResult<Table> {
        let mut fields = Vec::with_capacity(columns.columns.len());
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(columns.columns.len());
        for (name, column) in &columns.columns {
            let (kind, array, nullable): (DataType, ArrayRef, bool) = match column {
                Column::Str(v) => (DataType::Utf8, Arc::new(StringArray::from_iter_values(v)), false),
                Column::U64(v) => (DataType::UInt64, Arc::new(UInt64Array::from(v.clone())), false),
                Column::F64(v) => (DataType::Float64, Arc::new(Float64Array::from(v.clone())), false),
                Column::Bool(v) => (DataType::Boolean, Arc::new(BooleanArray::from(v.clone())), false),
                Column::OptU64(v) => (DataType::UInt64, Arc::new(UInt64Array::from(v.clone())), true),
            };
            fields.push(Field::new(name, kind, nullable));
            arrays.push(array);
        }
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
            .map_err(|e| PyRuntimeError::new_err(format!("cannot build the Arrow table: {e}")))?;
        Ok(Table { batch })
    }
}

#[pymethods]
impl Table {
    /// The Arrow C stream of the table (the Arrow PyCapsule interface); `requested_schema`
    /// is ignored (the table has one schema).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(vec![Ok(self.batch.clone())], self.batch.schema());
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        let name = CString::new("arrow_array_stream").map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        PyCapsule::new(py, stream, Some(name))
    }

    /// Number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// Column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.batch.schema().fields().iter().map(|f| f.name().clone()).collect()
    }

    fn __repr__(&self) -> String {
        format!("<coapcc table: {} rows × {} columns>", self.batch.num_rows(), self.batch.num_columns())
    }
}
