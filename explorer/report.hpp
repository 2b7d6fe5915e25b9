// Rendering a check's outcome: text table, JSON, exit code.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/registry.hpp"

namespace blkmc {

nlohmann::json stats_json(const Stats& s);
nlohmann::json outcome_json(const CheckOutcome& o);
std::string outcome_text(const CheckOutcome& o);
std::string stats_text(const Stats& s);
int exit_code(const CheckOutcome& o);  // violated > incomplete > holds

}  // namespace blkmc
