// DataType, Field and Schema as Python classes; type ids and time units cross as the
// names TypeIdName and TimeUnitName give ("int64", "us").
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "capsules.h"
#include "errors.h"
#include "lancet/data_type.h"
#include "module.h"

namespace lancet::python {
namespace {

namespace py = pybind11;

TypeId ParseTypeId(const std::string& name) {
  for (int i = static_cast<int>(TypeId::kNull); i <= static_cast<int>(TypeId::kDictionary); ++i) {
    const auto id = static_cast<TypeId>(i);
    if (name == TypeIdName(id)) return id;
  }
  throw StatusError(Status::InvalidArgument("unknown type name '" + name + "'"), NotFoundMeans::kBadArgument);
}

TimeUnit ParseUnit(const std::string& unit) {
  auto parsed = ParseTimeUnit(unit);
  if (!parsed) {
    throw StatusError(Status::InvalidArgument("unknown time unit '" + unit + "' (s, ms, us or ns)"),
                      NotFoundMeans::kBadArgument);
  }
  return *parsed;
}

DataType MakeDataType(const std::string& name, const std::string& unit, std::optional<std::string> tz,
                      int32_t byte_width, int32_t list_size, std::vector<Field> children, int32_t precision,
                      int32_t scale) {
  DataType t;
  t.id = ParseTypeId(name);
  t.unit = ParseUnit(unit);
  t.timezone = std::move(tz);
  t.byte_width = byte_width;
  t.list_size = list_size;
  t.children = std::move(children);
  t.precision = precision;
  t.scale = scale;
  return t;
}

py::dict MetadataToPython(const Metadata& metadata) {
  py::dict out;
  for (const auto& [k, v] : metadata) out[py::str(k)] = py::bytes(v);
  return out;
}

Metadata MetadataFromPython(const py::dict& metadata) {
  Metadata out;
  for (auto item : metadata) {
    py::object value = py::reinterpret_borrow<py::object>(item.second);
    out[py::cast<std::string>(item.first)] =
        py::isinstance<py::bytes>(value) ? std::string(py::cast<py::bytes>(value)) : py::cast<std::string>(value);
  }
  return out;
}

void BindDataType(py::module_& m) {
  py::class_<DataType>(m, "DataType")
      .def(py::init(&MakeDataType), py::arg("name"), py::arg("unit") = "s", py::arg("tz") = std::nullopt,
           py::arg("byte_width") = 0, py::arg("list_size") = 0, py::arg("children") = std::vector<Field>{},
           py::arg("precision") = 0, py::arg("scale") = 0)
      .def_property_readonly("name", [](const DataType& t) { return std::string(TypeIdName(t.id)); })
      .def_property_readonly("unit", [](const DataType& t) { return std::string(TimeUnitName(t.unit)); })
      .def_readonly("tz", &DataType::timezone)
      .def_readonly("byte_width", &DataType::byte_width)
      .def_readonly("list_size", &DataType::list_size)
      .def_readonly("precision", &DataType::precision)
      .def_readonly("scale", &DataType::scale)
      .def_readonly("children", &DataType::children)
      .def_property_readonly("bit_width", &DataType::BitWidth)
      .def_property_readonly("value_type",
                             [](const DataType& t) -> std::optional<DataType> {
                               if (!t.value_type) return std::nullopt;
                               return *t.value_type;
                             })
      .def_property_readonly("index_type",
                             [](const DataType& t) -> std::optional<DataType> {
                               if (!t.index_type) return std::nullopt;
                               return *t.index_type;
                             })
      .def("__eq__", [](const DataType& a, const DataType& b) { return a == b; })
      .def("__hash__", [](const DataType& t) { return py::hash(py::str(t.ToString())); })
      .def("__str__", &DataType::ToString)
      .def("__repr__", [](const DataType& t) { return "lancet.DataType(" + t.ToString() + ")"; })
      .def("__arrow_c_schema__", [](const DataType& t) { return FieldCapsule(MakeField("", t)); });
}

void BindField(py::module_& m) {
  py::class_<Field>(m, "Field")
      .def(py::init([](std::string name, DataType type, bool nullable, std::optional<py::dict> metadata) {
             Field f = MakeField(std::move(name), std::move(type), nullable);
             if (metadata) f.metadata = MetadataFromPython(*metadata);
             return f;
           }),
           py::arg("name"), py::arg("type"), py::arg("nullable") = true, py::arg("metadata") = std::nullopt)
      .def_readonly("name", &Field::name)
      .def_readonly("type", &Field::type)
      .def_readonly("nullable", &Field::nullable)
      .def_readonly("id", &Field::id)
      .def_property_readonly("metadata", [](const Field& f) { return MetadataToPython(f.metadata); })
      .def_property_readonly("is_blob", &IsBlobV2Field)
      .def("__eq__", [](const Field& a, const Field& b) { return a == b; })
      .def("__str__", &Field::ToString)
      .def("__repr__", [](const Field& f) { return "lancet.Field(" + f.ToString() + ")"; })
      .def("__arrow_c_schema__", &FieldCapsule)
      .def_static("_import_capsule", &ImportFieldCapsule);
}

void BindSchema(py::module_& m) {
  py::class_<Schema>(m, "Schema")
      .def(py::init([](std::vector<Field> fields, std::optional<py::dict> metadata) {
             Schema s;
             s.fields = std::move(fields);
             if (metadata) s.metadata = MetadataFromPython(*metadata);
             return s;
           }),
           py::arg("fields"), py::arg("metadata") = std::nullopt)
      .def_readonly("fields", &Schema::fields)
      .def_property_readonly("names",
                             [](const Schema& s) {
                               std::vector<std::string> names;
                               for (const Field& f : s.fields) names.push_back(f.name);
                               return names;
                             })
      .def_property_readonly("metadata", [](const Schema& s) { return MetadataToPython(s.metadata); })
      .def("field_index", &Schema::FieldIndex)
      .def("field",
           [](const Schema& s, const py::object& key) -> Field {
             int i = -1;
             if (py::isinstance<py::int_>(key)) {
               const auto n = static_cast<int64_t>(s.fields.size());
               const auto k = py::cast<int64_t>(key);
               i = static_cast<int>(k < 0 ? k + n : k);
               if (k < -n || k >= n) throw py::index_error("field " + std::to_string(k) + " out of range");
             } else {
               i = s.FieldIndex(py::cast<std::string>(key));
               if (i < 0) throw py::key_error("no field '" + py::cast<std::string>(key) + "'");
             }
             return s.fields[i];
           })
      .def("__len__", [](const Schema& s) { return s.fields.size(); })
      .def("__eq__", [](const Schema& a, const Schema& b) { return a.fields == b.fields; })
      .def("__str__", &Schema::ToString)
      .def("__repr__", [](const Schema& s) { return "lancet.Schema(\n" + s.ToString() + ")"; })
      .def("__arrow_c_schema__", &SchemaCapsule)
      .def_static("_import_capsule", &ImportSchemaCapsule);
}

}  // namespace

void RegisterTypes(py::module_& m) {
  BindField(m);  // first: DataType's signature names Field
  BindDataType(m);
  BindSchema(m);
}

}  // namespace lancet::python
