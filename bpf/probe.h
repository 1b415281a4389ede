// What every embedded probe offers the experiment runner: attach once, then one result per
// phase. A probe that cannot work on this kernel still exists and says why.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace initbench {

class Probe {
public:
    virtual ~Probe() = default;
    virtual std::string name() const = 0;
    // How it is attached (mechanism, target), or "supported": false with the reason.
    virtual nlohmann::json describe() const = 0;
    virtual bool supported() const = 0;
    virtual void phase_begin() = 0;
    virtual nlohmann::json phase_end() = 0;
};

} // namespace initbench
