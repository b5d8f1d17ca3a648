"""Files as memories: sources, confined paths, chunking, indexing a folder,
watching it. Imports core and rules."""
