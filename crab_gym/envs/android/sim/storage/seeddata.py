"""The names, messages, events, notes, tasks, mails and Drive entries the phone's databases are seeded
from."""

FIRST = [
    "Alice",
    "Bob",
    "Carol",
    "David",
    "Emma",
    "Frank",
    "Grace",
    "Henry",
    "Isabel",
    "Jack",
    "Karen",
    "Liam",
    "Maria",
    "Noah",
    "Olivia",
    "Peter",
    "Quinn",
    "Rosa",
    "Sam",
    "Tina",
    "Umar",
    "Vera",
    "Walter",
    "Yuki",
]
LAST = [
    "Smith",
    "Johnson",
    "Brown",
    "Garcia",
    "Miller",
    "Davis",
    "Lopez",
    "Wilson",
    "Anderson",
    "Thomas",
    "Moore",
    "Martin",
    "Lee",
    "Clark",
    "Lewis",
    "Walker",
    "Young",
    "King",
    "Wright",
    "Scott",
]
SMS_BODIES = [
    "See you at 6?",
    "Running 10 minutes late",
    "Can you call me back?",
    "Thanks for lunch!",
    "The meeting moved to 3pm",
    "Happy birthday!",
    "Did you get my email?",
    "On my way",
    "Let's meet at the station",
    "Don't forget the tickets",
]
EVENTS = [
    ("Team meeting", "Room 4B"),
    ("Dentist", "Main St Clinic"),
    ("Lunch with Sam", "Cafe Luna"),
    ("Project review", "Online"),
    ("Gym", "City Gym"),
    ("Flight to Berlin", "Airport T2"),
]
NOTES = [
    ("Shopping list", "Milk, eggs, bread"),
    ("Ideas", "Write the quarterly report outline"),
    ("Wi-Fi password", "guest network: crab2024"),
]
TASKS = ["Pay electricity bill", "Book train tickets", "Call the plumber", "Return library books"]
MAILS = [
    ("newsletter@example.com", "Weekly digest", "Top stories of the week."),
    ("boss@example.com", "Report due Friday", "Please send the report by Friday noon."),
    ("friend@example.com", "Weekend plans", "Hiking on Saturday?"),
]
FOLDER_MIME = "application/vnd.google-apps.folder"
DRIVE = [  # (title, mime type, size): My Drive as the account has it
    ("Work", FOLDER_MIME, 0),
    ("Photos", FOLDER_MIME, 0),
    ("Budget 2024.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", 18_432),
    ("Meeting notes.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", 9_216),
    ("Resume.pdf", "application/pdf", 64_512),
]
