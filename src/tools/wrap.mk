# (filled by its component)
