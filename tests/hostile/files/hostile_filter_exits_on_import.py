"""Imported by input_filter_python_import_exits.yaml: importing it calls sys.exit."""

import sys

sys.exit(3)
