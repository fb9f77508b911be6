"""Documents (text, Markdown, HTML) -> plain text -> WordPiece-token chunks with overlap."""
