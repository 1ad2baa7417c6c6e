print("walkthrough")
