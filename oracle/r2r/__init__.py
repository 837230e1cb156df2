"""The relation-to-relation side: a continuous query's SPARQL evaluated per window by rdflib and Oxigraph, with the kit's term comparison."""
