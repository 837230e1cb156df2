"""Continuous query dialects: rendering a case into RSP-QL, C-SPARQL or CQELS-QL, and reading such a query back into the neutral form."""
