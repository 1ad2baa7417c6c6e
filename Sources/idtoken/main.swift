print("idtoken")
