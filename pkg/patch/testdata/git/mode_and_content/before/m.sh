only mode
