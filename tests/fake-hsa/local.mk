# Test double of the HSA runtime (filled below).
