print("config-dump")
