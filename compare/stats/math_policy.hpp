// Internal to compare/stats/: how Boost.Math is called. A domain or evaluation error gives NaN (and
// errno), never an exception out of a comparison; evaluated in double, not promoted to long
// double: Boost's double-precision t distribution is accurate to a few ulps, and x87 long double
// made it most of a 100,000-entry compare's time.
#pragma once

#include <boost/math/policies/policy.hpp>

namespace gpubench::compare::detail {

using MathPolicy = boost::math::policies::policy<
    boost::math::policies::domain_error<boost::math::policies::errno_on_error>,
    boost::math::policies::pole_error<boost::math::policies::errno_on_error>,
    boost::math::policies::overflow_error<boost::math::policies::errno_on_error>,
    boost::math::policies::evaluation_error<boost::math::policies::errno_on_error>,
    boost::math::policies::promote_double<false>>;
inline constexpr MathPolicy k_math_policy{};

}  // namespace gpubench::compare::detail
