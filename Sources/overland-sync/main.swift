// TEMPORARY while the sync library lands; replaced before commit.
print("overland-sync")
