#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: mdkd_policy_lopp with lopp_model = trees: the same workload,
# pattern change and checks, the evaluator fitting XGBoost's gradient-
# boosted trees in its worker thread instead of the logistic regression.
LOPP_MODEL=trees
. "$(dirname "$0")/mdkd_policy_lopp.sh"
