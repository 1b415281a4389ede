#include "host/lab/yaml_writer.h"

#include <stdexcept>
#include <yaml.h>

namespace initbench {
namespace {

int append(void* data, unsigned char* buffer, size_t size) {
    static_cast<std::string*>(data)->append(reinterpret_cast<const char*>(buffer), size);
    return 1;
}

yaml_char_t* text_ptr(std::string_view s) {
    return reinterpret_cast<yaml_char_t*>(const_cast<char*>(s.data()));
}

} // namespace

YamlWriter::YamlWriter() : emitter_(std::make_unique<yaml_emitter_t>()) {
    if (!yaml_emitter_initialize(emitter_.get()))
        throw std::runtime_error("yaml: cannot initialize the emitter");
    yaml_emitter_set_output(emitter_.get(), append, &out_);
    yaml_emitter_set_unicode(emitter_.get(), 1);
    yaml_emitter_set_width(emitter_.get(), -1); // long values stay on one line
    yaml_event_t e;
    yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING);
    emit(&e);
    yaml_document_start_event_initialize(&e, nullptr, nullptr, nullptr, 1);
    emit(&e);
}

YamlWriter::~YamlWriter() { yaml_emitter_delete(emitter_.get()); }

void YamlWriter::emit(void* event) {
    if (!yaml_emitter_emit(emitter_.get(), static_cast<yaml_event_t*>(event)))
        throw std::runtime_error(std::string("yaml: ") +
                                 (emitter_->problem ? emitter_->problem : "the emitter refused an event"));
}

void YamlWriter::begin_map(Style style) {
    yaml_event_t e;
    yaml_mapping_start_event_initialize(&e, nullptr, nullptr, 1,
                                        style == Style::flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
    emit(&e);
}

void YamlWriter::end_map() {
    yaml_event_t e;
    yaml_mapping_end_event_initialize(&e);
    emit(&e);
}

void YamlWriter::begin_seq(Style style) {
    yaml_event_t e;
    yaml_sequence_start_event_initialize(&e, nullptr, nullptr, 1,
                                         style == Style::flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
    emit(&e);
}

void YamlWriter::end_seq() {
    yaml_event_t e;
    yaml_sequence_end_event_initialize(&e);
    emit(&e);
}

void YamlWriter::scalar(std::string_view text) {
    yaml_event_t e;
    yaml_scalar_event_initialize(&e, nullptr, nullptr, text_ptr(text), static_cast<int>(text.size()), 1, 1,
                                 YAML_ANY_SCALAR_STYLE);
    emit(&e);
}

void YamlWriter::quoted(std::string_view text) {
    yaml_event_t e;
    yaml_scalar_event_initialize(&e, nullptr, nullptr, text_ptr(text), static_cast<int>(text.size()), 0, 1,
                                 YAML_SINGLE_QUOTED_SCALAR_STYLE);
    emit(&e);
}

std::string YamlWriter::finish() {
    if (!finished_) {
        yaml_event_t e;
        yaml_document_end_event_initialize(&e, 1);
        emit(&e);
        yaml_stream_end_event_initialize(&e);
        emit(&e);
        finished_ = true;
    }
    return out_;
}

} // namespace initbench
